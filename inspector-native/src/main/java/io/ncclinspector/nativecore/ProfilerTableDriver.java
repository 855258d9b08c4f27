package io.ncclinspector.nativecore;

import java.nio.ByteBuffer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.annotation.Cast;
import org.bytedeco.javacpp.annotation.Name;
import org.bytedeco.javacpp.annotation.Platform;

/**
 * The JavaCPP mapping of the profiler-table driver ({@code driver/profiler_table_driver.h}): a
 * stand-in for NCCL that {@code dlopen}s a profiler plugin by path, looks up its
 * {@code ncclProfiler_v5} table and makes the calls of a recorded trace. Used by trace replay and
 * the benchmarks. It lives in its own shared object, separate from the core it drives.
 */
@Platform(
    include = "driver/profiler_table_driver.h",
    link = {"nccl_inspector_driver", "dl"},
    library = "nccl-inspector-driver")
public final class ProfilerTableDriver {
  static {
    Loader.load();
  }

  /** Bytes of one packed event ({@code driver_event}). */
  public static final int EVENT_BYTES = 128;

  /** The largest handle or context id a trace may use ({@code DRIVER_MAX_ID}). */
  public static final int MAX_ID = 1 << 24;

  private ProfilerTableDriver() {}

  @Name("profiler_driver_open")
  public static native int open(String libraryPath);

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

  @Name("profiler_driver_close")
  public static native void close();
}
