package io.ncclinspector.testkit.driver;

import java.nio.ByteBuffer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.annotation.Cast;
import org.bytedeco.javacpp.annotation.Name;
import org.bytedeco.javacpp.annotation.Platform;

/**
 * The JavaCPP mapping of the profiler-table driver ({@code driver/profiler_table_driver.h}): a
 * stand-in for NCCL that {@code dlopen}s a profiler plugin by path, looks up its
 * {@code ncclProfiler_v5} table and makes the calls of a recorded trace. Used by trace replay and
 * the benchmarks. It lives in its own shared object, separate from the core it drives. The layout
 * of its packed events is exported by name ({@code layout*}) and read by {@code DriverEventLayout}.
 */
@Platform(
    include = {"driver/profiler_table_driver.h", "driver/cupti_stand_in.h"},
    link = {"nccl_inspector_driver", "dl"},
    library = "nccl-inspector-driver")
public final class ProfilerTableDriver {
  private static final String LIBRARY_PATH;

  static {
    LIBRARY_PATH = Loader.load();
  }

  /**
   * The path of this driver's shared object, which also exports the CUPTI stand-in
   * ({@code driver/cupti_stand_in.h}): give it to {@code InspectorConfig.Builder.cuptiLibrary}.
   */
  public static String libraryPath() {
    return LIBRARY_PATH;
  }

  /**
   * Resets the CUPTI stand-in: the i-th launch (in push order) ran its kernel from starts[i] to
   * ends[i] (ns; a negative start: no kernel); enabling fails with enableError unless 0.
   */
  @Name("cupti_stand_in_reset")
  public static native void cuptiStandInReset(@Cast("const long long*") long[] starts,
      @Cast("const long long*") long[] ends, int n, int enableError);

  /** Another CUPTI tool holds (true) or leaves CUPTI's one subscriber slot; a reset frees it. */
  @Name("cupti_stand_in_other_tool")
  public static native void cuptiStandInOtherTool(boolean subscribed);

  /** Subscribers holding the stand-in's slot now, other tools aside (0 or 1). */
  @Name("cupti_stand_in_subscribers")
  public static native int cuptiStandInSubscribers();

  @Name("cupti_stand_in_pushes")
  public static native long cuptiStandInPushes();

  @Name("cupti_stand_in_pops")
  public static native long cuptiStandInPops();

  @Name("cupti_stand_in_unbalanced_pops")
  public static native long cuptiStandInUnbalancedPops();

  private ProfilerTableDriver() {}

  @Name("profiler_driver_open")
  public static native int open(String libraryPath);

  /** The interface versions the opened plugin exports a table of: bit N for {@code ncclProfiler_vN}. */
  @Name("profiler_driver_exported_versions")
  public static native int exportedVersions();

  @Name("profiler_driver_open_null")
  public static native int openNull();

  @Name("profiler_driver_error")
  public static native String error();

  @Name("profiler_driver_loaded_path")
  public static native String loadedPath();

  @Name("profiler_driver_prepare")
  public static native int prepare(int maxHandleId, int maxContextId);

  @Name("profiler_driver_intern")
  public static native int intern(String s);

  @Name("profiler_driver_run")
  public static native long run(
      @Cast("const void*") ByteBuffer events, long count, int virtualClock, @Cast("long long*") long[] callNanos);

  /**
   * Makes the events' calls on the threads that made them, at the pace they were made
   * ({@code speed} 1.0), each at its recorded time on the plugin's virtual clock, calls of two threads closer than windowNanos
   * in either order ({@code profiler_driver_run_paced}); lagNanos (4 long) gets the calls' mean and
   * largest lateness against their pace, the calls made out of recorded order and the largest
   * inversion. Returns the calls made, or -1.
   */
  @Name("profiler_driver_run_paced")
  public static native long runPaced(@Cast("const void*") ByteBuffer events, long count, double speed,
      long windowNanos, @Cast("long long*") long[] lagNanos);

  /** Finalizes the communicators a run left open (a trace cut short); returns how many. */
  @Name("profiler_driver_finalize_open")
  public static native int finalizeOpen();

  @Name("profiler_driver_close")
  public static native void close();

  /** Sets or (enabled 0) releases the opened plugin's virtual clock; -1 if it has none. */
  @Name("profiler_driver_set_virtual_clock")
  public static native int setVirtualClock(int enabled, long monoNanos, long wallNanos);

  /** The process environment through libc, as NCCL reads it (null when unset). */
  @Name("profiler_driver_getenv")
  public static native String getenv(String name);

  /** Sets (null: unsets) a variable of the process environment through libc; 0 on success. */
  @Name("profiler_driver_setenv")
  public static native int setenv(String name, String value);

  /** Bytes malloc'ed and not freed in the process (glibc mallinfo2); -1 where unavailable. */
  @Name("profiler_driver_malloc_in_use")
  public static native long mallocInUse();

  @Name("profiler_driver_layout_count")
  public static native int layoutCount();

  @Name("profiler_driver_layout_name")
  public static native String layoutName(int i);

  @Name("profiler_driver_layout_offset")
  public static native int layoutOffset(int i);

  @Name("profiler_driver_layout_size")
  public static native int layoutSize(int i);
}
