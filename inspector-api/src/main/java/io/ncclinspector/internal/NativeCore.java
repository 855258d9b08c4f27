package io.ncclinspector.internal;

import io.ncclinspector.EventCounters;
import io.ncclinspector.Quarantine;
import io.ncclinspector.nativecore.InspectorNative;
import io.ncclinspector.nativecore.NativeLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Java's view of the native core: loads the shared object once per JVM, reads its name tables
 * and record layout, and wraps its calls. All of the core's state is process-wide, like NCCL's
 * profiler plugin slot.
 */
public final class NativeCore {
  /** Name tables, in the order of {@code name_table} in names.h. */
  static final int TABLE_FUNC = 0;
  static final int TABLE_DATATYPE = 1;
  static final int TABLE_ALGO = 2;
  static final int TABLE_PROTO = 3;
  static final int TABLE_TIMING_SOURCE = 4;
  static final int TABLE_RECORD_FLAG = 5;

  /** Kinds of counters (event_counters.h). */
  private static final int COUNTER_NOTE = 1;
  private static final int COUNTER_QUARANTINE = 2;

  /** States of the core (core_state.h). */
  public static final int STATE_OFF = 0;
  public static final int STATE_ENABLED = 1;
  public static final int STATE_PAUSED = 2;
  public static final int STATE_CLOSED = 3;

  private static volatile NativeCore instance;

  private final Path libraryPath;
  private final NativeLayout layoutTable;
  private final RecordLayout layout;
  private final String[][] names = new String[6][];
  private final String[] counterNames;
  private final int[] counterKind;
  /** The quarantine reason of each counter of kind 2, null for the others. */
  private final Quarantine[] counterReason;

  private NativeCore() {
    String loadedFrom = InspectorNative.load();
    String self = InspectorNative.libraryPath();
    this.libraryPath = Path.of(self != null ? self : loadedFrom).toAbsolutePath();
    this.layoutTable = NativeLayout.core();
    this.layout = new RecordLayout(layoutTable);
    for (int t = 0; t < names.length; t++) {
      int n = InspectorNative.nameCount(t);
      names[t] = new String[n];
      for (int i = 0; i < n; i++) {
        names[t][i] = InspectorNative.name(t, i);
      }
    }
    int counters = InspectorNative.counterCount();
    counterNames = new String[counters];
    counterKind = new int[counters];
    counterReason = new Quarantine[counters];
    for (int i = 0; i < counters; i++) {
      counterNames[i] = InspectorNative.counterName(i);
      counterKind[i] = InspectorNative.counterKind(i);
      if (counterKind[i] == COUNTER_QUARANTINE) {
        counterReason[i] = quarantineNamed(counterNames[i]);
      }
    }
  }

  /** The process's core, loading the shared object on first use. */
  public static NativeCore get() {
    NativeCore c = instance;
    if (c == null) {
      synchronized (NativeCore.class) {
        c = instance;
        if (c == null) {
          c = new NativeCore();
          instance = c;
        }
      }
    }
    return c;
  }

  /** Absolute path of the loaded shared object: the path NCCL must {@code dlopen}. */
  public Path libraryPath() {
    return libraryPath;
  }

  public RecordLayout layout() {
    return layout;
  }

  /** Every layout the core exports by name (records, in-flight entries, raw recorded events). */
  NativeLayout layoutTable() {
    return layoutTable;
  }

  int nameCount(int table) {
    return names[table].length;
  }

  String name(int table, int id) {
    String[] t = names[table];
    return id >= 0 && id < t.length ? t[id] : "Unknown";
  }

  public int state() {
    return InspectorNative.state();
  }

  public int enable(int opSlots, int commSlots, int ringCells, long minSizeBytes, boolean p2p,
      boolean verbose, boolean requireKernelTiming, long expiryNanos) {
    return InspectorNative.enable(opSlots, commSlots, ringCells, minSizeBytes, p2p ? 1 : 0,
        verbose ? 1 : 0, requireKernelTiming ? 1 : 0, expiryNanos);
  }

  /** Whether communicators initialised from now on ask NCCL for proxy events. */
  public void setNetworkBreakdown(boolean on) {
    InspectorNative.setNetworkBreakdown(on ? 1 : 0);
  }

  /** Whether communicators initialised from now on recover kernel-channel times put out of step. */
  public void setChannelRecovery(boolean on) {
    InspectorNative.setChannelRecovery(on ? 1 : 0);
  }

  /** Whether the next {@link #enable} may take CPU times from the time-stamp counter (tsc_clock.h). */
  public void setTscClock(boolean on) {
    InspectorNative.setTscClock(on ? 1 : 0);
  }

  /** Whether the next {@link #enable} turns the deferred mode on (defer_log.h). */
  public void setDeferred(boolean on) {
    InspectorNative.setDeferred(on ? 1 : 0);
  }

  /**
   * In the deferred mode, replays the calls logged so far, as far as the record ring takes them, so
   * that the next drain has their records (a flush the application asked for); else nothing.
   */
  public void replayLoggedCalls() {
    InspectorNative.deferReplayPublished();
  }

  /** Whether callbacks log for the core's consumer thread now. */
  public boolean deferredActive() {
    return InspectorNative.deferredActive() != 0;
  }

  /** Whether CPU times come from the time-stamp counter now (else from clock_gettime). */
  public boolean tscClockActive() {
    return InspectorNative.tscClockActive() != 0;
  }

  /** Kernel-records states of the native core (kernel_records.h). */
  public static final int KERNEL_RECORDS_OFF = 0, KERNEL_RECORDS_ACTIVE = 1, KERNEL_RECORDS_UNAVAILABLE = 2;

  /**
   * Starts CUPTI kernel records ({@code library}: a path, or empty for libcupti.so on the library
   * path); returns the state, {@link #kernelRecordsReason} says why when unavailable. Unless
   * {@code shared}, a libcupti the inspector did not load, already in the process, keeps them off.
   */
  public int startKernelRecords(String library, boolean shared) {
    return InspectorNative.kernelRecordsStart(library == null ? "" : library, shared ? 1 : 0);
  }

  /** Hands CUPTI's completed buffers over (their NCCL kernels go into the ring). */
  public void flushKernelRecords() {
    InspectorNative.kernelRecordsFlush();
  }

  public int kernelRecordsState() {
    return InspectorNative.kernelRecordsState();
  }

  public String kernelRecordsReason() {
    return InspectorNative.kernelRecordsReason();
  }

  public void close() {
    InspectorNative.close();
  }

  public void release() {
    InspectorNative.release();
  }

  public void setPaused(boolean paused) {
    InspectorNative.setPaused(paused ? 1 : 0);
  }

  public void setMinMessageBytes(long bytes) {
    InspectorNative.setMinSize(bytes);
  }

  /** Copies whole records into the direct buffer from position 0; returns the bytes copied. */
  public int drain(ByteBuffer direct) {
    return (int) InspectorNative.drain(direct, direct.capacity());
  }

  public int sweep() {
    return InspectorNative.sweep();
  }

  public int liveCommunicators() {
    return InspectorNative.liveCommunicators();
  }

  public boolean ncclAlreadyLoaded() {
    return InspectorNative.ncclLoaded() != 0;
  }

  public String getenv(String name) {
    return InspectorNative.getenv(name);
  }

  public boolean setenv(String name, String value) {
    return InspectorNative.setenv(name, value) == 0;
  }

  public EventCounters counters() {
    Map<String, Long> drops = new LinkedHashMap<>();
    Map<String, Long> notes = new LinkedHashMap<>();
    Map<Quarantine, Long> quarantined = new EnumMap<>(Quarantine.class);
    for (int i = 0; i < counterNames.length; i++) {
      long v = InspectorNative.counter(i);
      if (counterReason[i] != null) {
        quarantined.put(counterReason[i], v);
      } else if (counterKind[i] == COUNTER_NOTE) {
        notes.put(counterNames[i], v);
      } else {
        drops.put(counterNames[i], v);
      }
    }
    return new EventCounters(drops, notes, quarantined);
  }

  private static Quarantine quarantineNamed(String name) {
    for (Quarantine q : Quarantine.values()) {
      if (q != Quarantine.NONE && q.jsonName().equals(name)) {
        return q;
      }
    }
    throw new IllegalStateException("native quarantine counter '" + name + "' unknown to this jar:"
        + " the jar and the native library come from different builds");
  }
}
