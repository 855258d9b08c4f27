package io.ncclinspector.nativecore;

import java.nio.ByteBuffer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.annotation.Cast;
import org.bytedeco.javacpp.annotation.Name;
import org.bytedeco.javacpp.annotation.Platform;

/**
 * The JavaCPP mapping of the native core ({@code inspector_native.h}). The JavaCPP build links the
 * C core into the same shared object as these mappings, so the library Java loads is the very one
 * NCCL is told to {@code dlopen}: one copy of the core's state per process.
 *
 * <p>This is a low-level binding for {@code inspector-api}; applications use {@code NcclInspector}.
 */
@Platform(
    include = "inspector_native.h",
    link = {"nccl_inspector_core", "dl"},
    library = "nccl-inspector")
public final class InspectorNative {
  private static final String LIBRARY_PATH;

  static {
    LIBRARY_PATH = Loader.load();
  }

  private InspectorNative() {}

  /** Loads the shared object (once) and returns the path JavaCPP loaded it from. */
  public static String load() {
    return LIBRARY_PATH;
  }

  @Name("nccl_inspector_enable")
  public static native int enable(
      int opSlots,
      int commSlots,
      int ringCells,
      long minSizeBytes,
      int enableP2p,
      int verbose,
      int requireKernelTiming,
      long inflightExpiryNanos);

  @Name("nccl_inspector_close")
  public static native void close();

  @Name("nccl_inspector_release")
  public static native void release();

  @Name("nccl_inspector_state")
  public static native int state();

  @Name("nccl_inspector_set_paused")
  public static native void setPaused(int paused);

  @Name("nccl_inspector_set_network_breakdown")
  public static native void setNetworkBreakdown(int on);

  @Name("nccl_inspector_set_channel_recovery")
  public static native void setChannelRecovery(int on);

  @Name("nccl_inspector_set_tsc_clock")
  public static native void setTscClock(int on);

  @Name("nccl_inspector_tsc_clock_active")
  public static native int tscClockActive();

  @Name("nccl_inspector_set_deferred")
  public static native void setDeferred(int on);

  @Name("nccl_inspector_deferred_active")
  public static native int deferredActive();

  @Name("nccl_inspector_defer_replay_published")
  public static native void deferReplayPublished();

  @Name("nccl_inspector_kernel_records_start")
  public static native int kernelRecordsStart(String library, int shared);

  @Name("nccl_inspector_kernel_records_flush")
  public static native void kernelRecordsFlush();

  @Name("nccl_inspector_kernel_records_stop")
  public static native void kernelRecordsStop();

  @Name("nccl_inspector_kernel_records_state")
  public static native int kernelRecordsState();

  @Name("nccl_inspector_kernel_records_reason")
  public static native String kernelRecordsReason();

  @Name("nccl_inspector_set_min_size")
  public static native void setMinSize(long minSizeBytes);

  @Name("nccl_inspector_drain")
  public static native long drain(@Cast("void*") ByteBuffer buffer, long capacity);

  @Name("nccl_inspector_trace_start")
  public static native int traceStart(int ringCells);

  @Name("nccl_inspector_trace_stop")
  public static native void traceStop();

  @Name("nccl_inspector_drain_trace")
  public static native long drainTrace(@Cast("void*") ByteBuffer buffer, long capacity);

  @Name("nccl_inspector_inflight")
  public static native int inflight(long minAgeNanos, @Cast("void*") ByteBuffer buffer, int maxEntries);

  @Name("nccl_inspector_set_thread_tag")
  public static native void setThreadTag(long step, int phase);

  @Name("nccl_inspector_sweep")
  public static native int sweep();

  @Name("nccl_inspector_ring_used_cells")
  public static native long ringUsedCells();

  @Name("nccl_inspector_live_comms")
  public static native int liveCommunicators();

  @Name("nccl_inspector_counter_count")
  public static native int counterCount();

  @Name("nccl_inspector_counter_name")
  public static native String counterName(int id);

  /** 0 drop, 1 note, 2 quarantine. */
  @Name("nccl_inspector_counter_kind")
  public static native int counterKind(int id);

  @Name("nccl_inspector_counter")
  public static native long counter(int id);

  @Name("nccl_inspector_name_count")
  public static native int nameCount(int table);

  @Name("nccl_inspector_name")
  public static native String name(int table, int id);

  @Name("nccl_inspector_layout_count")
  public static native int layoutCount();

  @Name("nccl_inspector_layout_name")
  public static native String layoutName(int i);

  @Name("nccl_inspector_layout_offset")
  public static native int layoutOffset(int i);

  @Name("nccl_inspector_layout_size")
  public static native int layoutSize(int i);

  @Name("nccl_inspector_library_path")
  public static native String libraryPath();

  @Name("nccl_inspector_nccl_loaded")
  public static native int ncclLoaded();

  @Name("nccl_inspector_getenv")
  public static native String getenv(String name);

  @Name("nccl_inspector_setenv")
  public static native int setenv(String name, String value);
}
