package io.ncclinspector;

import io.ncclinspector.spi.InspectorVariables;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The table of the inspector's own settings, each defined here once: the environment variable
 * (null for a setting only the builder has), the builder setting it sets (the name messages and
 * {@link InspectorConfig#toString()} use; null for a variable that sets part of another setting),
 * how the variable is read, the default value and its text as docs/configuration.md states it, the
 * meaning, and the range that {@link InspectorConfig.Builder#build()} checks.
 *
 * <p>{@link InspectorConfig} keeps the value of every row that has a builder setting, keyed by the
 * row; {@link EnvironmentReader} reads the {@link Reading#PLAIN} rows from here alone;
 * ConfigurationReferenceTest generates the configuration reference from this table. Exporters'
 * variables are not here: each exporter's provider declares its own
 * ({@link io.ncclinspector.spi.ExporterProvider#variables()}).
 */
enum Setting {
  ENABLE("NCCL_INSPECTOR_ENABLE", "enabled", Kind.SWITCH, Reading.PLAIN, true, "1",
      "`0` makes `enable()` return an inactive inspector (the reference defaults to 0 because loading its plugin"
          + " is the opt-in; here calling `enable()` is)"),
  DUMP_INTERVAL(InspectorVariables.DUMP_INTERVAL, "dumpInterval", Kind.DURATION_US, Reading.SPECIAL,
      Duration.ofSeconds(1), "1000000",
      "how often output is flushed; below 0: no JSON output (the reference's default −1 means no output at all;"
          + " `enable()` is an explicit request for output)",
      0, Long.MAX_VALUE, null),
  DUMP_DIR("NCCL_INSPECTOR_DUMP_DIR", "dumpDirectory", Kind.PATH, Reading.PLAIN, null,
      "`nccl-inspector-<SLURM_JOBID>` or `nccl-inspector-unknown-jobid`", "output directory"),
  DUMP_VERBOSE("NCCL_INSPECTOR_DUMP_VERBOSE", "verbose", Kind.SWITCH, Reading.PLAIN, false, "0",
      "add `event_trace_sn` / `event_trace_ts` per record"),
  ENABLE_P2P("NCCL_INSPECTOR_ENABLE_P2P", "trackP2p", Kind.SWITCH, Reading.PLAIN, true, "1", "track Send/Recv"),
  DUMP_MIN_SIZE_BYTES("NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES", "minMessageBytes", Kind.LONG, Reading.PLAIN, 8192L,
      "8192", "smallest message tracked", 0, Long.MAX_VALUE, null),
  REQUIRE_KERNEL_TIMING("NCCL_INSPECTOR_REQUIRE_KERNEL_TIMING", "requireKernelTiming", Kind.SWITCH, Reading.PLAIN,
      true, "1", "keep only GPU-timed records (`kernel_gpu`; with kernel records also `kernel_cupti` and"
          + " `kernel_cupti_group`) and quarantined ones (written apart); the others are dropped, counted as"
          + " `no_gpu_timing`"),
  NETWORK_BREAKDOWN("NCCL_INSPECTOR_NETWORK_BREAKDOWN", "networkBreakdown", Kind.SWITCH, Reading.PLAIN, true, "1",
      "ask NCCL for proxy events and give each operation on a network transport its network breakdown"
          + " (`*_net_*` fields: [Output](output.md#network-breakdown)); read at each communicator's init"),
  CHANNEL_RECOVERY("NCCL_INSPECTOR_CHANNEL_RECOVERY", "channelRecovery", Kind.SWITCH, Reading.PLAIN, true, "1",
      "recover the GPU times of kernel channels NCCL put out of step (after a send/receive to self), handed on"
          + " by later operations, instead of withholding them (`*_time_recovery`: [Output](output.md#how-a-gpu-time-was-obtained-channel-recovery));"
          + " 604 KiB of native memory per communicator; about a tenth of the core's callback cost while the"
          + " channels stay in step (the numbering of each operation), a third to two fifths once they go out of"
          + " step (on the h3_mix trace, 13 sends to self in 262 operations, 62–71 ns per callback with it against"
          + " 36–43 without on a 2-vCPU VM: BENCHMARKS.md); read at each communicator's init"),
  TSC_CLOCK("NCCL_INSPECTOR_TSC_CLOCK", "tscClock", Kind.SWITCH, Reading.PLAIN, true, "1",
      "take the CPU times of the callbacks from the processor's time-stamp counter, scaled to CLOCK_MONOTONIC and"
          + " kept on it every 100 ms, where the kernel's own clock is that counter (x86-64, invariant TSC,"
          + " clocksource `tsc`); elsewhere, or at 0, from `clock_gettime` (14 ns more per clock read on the"
          + " development VM; on the h3_mix trace 28–32 ns per callback against 33–39: BENCHMARKS.md); read at"
          + " `enable()`"),
  DEFERRED("NCCL_INSPECTOR_DEFERRED", "deferred", Kind.SWITCH, Reading.PLAIN, true, "1",
      "each callback only logs its call in its thread's log (a clock read and a copy, nothing else on NCCL's"
          + " threads) and a thread of the core does the core's work, replaying the calls in the order they were"
          + " made, with the same output: 0.13–0.14 of NVIDIA's Inspector's excess cost per callback against"
          + " 0.32–0.38 at 0, on a 2-vCPU VM, for more CPU per record on another core (1.7–2.1 µs against"
          + " 1.3–1.6) and 4 MiB of native memory per calling thread for up to 32 of them, the others sharing"
          + " one log under a lock until one is free (BENCHMARKS.md, [Research](research/deferred-core.md));"
          + " interfaces v4–v6 (older ones, and a core that cannot start its thread, run as at 0); records"
          + " come out a consumer round later (up to a millisecond, 10 ms after a pause of 100 ms); 0: the"
          + " callbacks do the core's work on NCCL's threads; read at `enable()`"),
  DIRECT_IO("NCCL_INSPECTOR_DIRECT_IO", "directIo", Kind.SWITCH, Reading.PLAIN, true, "1",
      "write the JSON files with `O_DIRECT` where their directory takes it (tried once per directory): the lines"
          + " bypass the page cache, which they would otherwise fill, for a third of the appending thread's CPU or"
          + " less on the development VM (BENCHMARKS.md); until the next flush (the dump interval) the file can end in less than a"
          + " block of blank lines; 0: through the page cache"),
  KERNEL_RECORDS("NCCL_INSPECTOR_KERNEL_RECORDS", "kernelRecords", Kind.SWITCH, Reading.PLAIN, false, "0",
      "time the operations NCCL's kernel channels cannot (withheld, lower bounds) by their kernel's CUPTI activity"
          + " record, where the kernel ran that operation alone (`timing_source: kernel_cupti`:"
          + " [Output](output.md#kernel-times-from-cupti)); takes CUPTI for the process, so not with another CUPTI"
          + " tool (Nsight, PyTorch's profiler): refused with a warning if CUPTI cannot be had"),
  CUPTI_LIBRARY("NCCL_INSPECTOR_CUPTI_LIBRARY", "cuptiLibrary", Kind.OPTIONAL_PATH, Reading.PLAIN, null,
      "(libcupti.so on the library path)", "the CUPTI library the kernel records load"),
  CUPTI_SHARED("NCCL_INSPECTOR_CUPTI_SHARED", "cuptiShared", Kind.SWITCH, Reading.PLAIN, false, "0",
      "start kernel records even where a `libcupti` the inspector did not load is already in the process"
          + " (left off by default: CUPTI keeps one set of activity callbacks per process, and the program's"
          + " own CUPTI client would lose its records); for a process that loads CUPTI without collecting"
          + " with it, such as libtorch with its profiler off"),
  OVERRIDE_PLUGIN("NCCL_INSPECTOR_OVERRIDE_PLUGIN", "overridePlugin", Kind.SWITCH, Reading.PLAIN, false, "0",
      "replace a plugin `NCCL_PROFILER_PLUGIN` already names"),
  NCCL_WORKAROUNDS("NCCL_INSPECTOR_NCCL_WORKAROUNDS", "ncclWorkarounds", Kind.SWITCH, Reading.PLAIN, true, "1",
      "set the NCCL variables that keep known NCCL defects away from the job, where the program has not set them"
          + " (today `NCCL_ALLGATHERV_ENABLE=0`: [NCCL releases](nccl-defects-and-releases.md#nccl-releases))"),
  INFLIGHT_OPS("NCCL_INSPECTOR_INFLIGHT_OPS", "inflightOperations", Kind.INT, Reading.PLAIN, 2048, "2048",
      "operations in flight at once, at most 2097152 (11.3 KiB of native memory each: its kernel channels, its"
          + " channel recovery state and its network breakdown's proxy operations with their steps in flight)",
      16, 1 << 21, null),
  MAX_COMMS("NCCL_INSPECTOR_MAX_COMMS", "maxCommunicators", Kind.INT, Reading.PLAIN, 1024, "1024",
      "communicators live at once (with channel recovery on, 604 KiB of native memory per communicator slot used,"
          + " allocated at the first init in the slot and kept for its later communicators)",
      1, 1 << 16, null),
  RING_CELLS("NCCL_INSPECTOR_RING_CELLS", "ringCells", Kind.INT, Reading.PLAIN, 1 << 18, "262144",
      "native record ring, 64-byte cells (16 MiB, about 87k records: 175 ms at 500k records/s)", 1024, 1 << 26, "a power of two in [1024, 2^26]"),
  INFLIGHT_EXPIRY_MS("NCCL_INSPECTOR_INFLIGHT_EXPIRY_MS", "inflightExpiry", Kind.DURATION_MS, Reading.PLAIN,
      Duration.ofSeconds(10), "10000",
      "a stopped operation that no kernel channel joined within this time is closed with CPU timing (0: never)",
      0, Long.MAX_VALUE, null),
  TRACE_DIR("NCCL_INSPECTOR_TRACE_DIR", "traceDirectory", Kind.OPTIONAL_PATH, Reading.PLAIN, null, "(off)",
      "record every callback NCCL makes into `trace-pid<pid>.jsonl.gz` there, replayable with"
          + " `bin/nccl-inspector replay`"),
  TRACE_MAX_BYTES("NCCL_INSPECTOR_TRACE_MAX_BYTES", "traceMaxBytes", Kind.LONG, Reading.PLAIN, 1L << 30, "1 GiB",
      "bound of that recording (uncompressed); further callbacks are counted, not written", 0, Long.MAX_VALUE, null),
  TRACE_BUFFER_MB("NCCL_INSPECTOR_TRACE_BUFFER_MB", "traceBufferBytes", Kind.SIZE_MB, Reading.PLAIN, 64L << 20, "64",
      "native buffer of that recording (about 350,000 callbacks); a burst beyond it is counted"
          + " (`trace_ring_full`), not recorded",
      1L << 20, 1L << 30, "[1 MiB, 1 GiB]"),
  HANG_TIMEOUT_MS("NCCL_INSPECTOR_HANG_TIMEOUT_MS", "hangTimeout", Kind.DURATION_MS, Reading.PLAIN,
      Duration.ofMinutes(5), "300000", "in flight longer than this: reported to listeners as a suspected hang (0: off)",
      0, Long.MAX_VALUE, null),
  /* The slow-collective variables each set a part of the builder's SlowCollectiveDetection. */
  SLOW_FACTOR("NCCL_INSPECTOR_SLOW_FACTOR", null, Kind.NUMBER, Reading.SPECIAL, null, "5",
      "a collective is slow from this many times its class's normal upper bound (0: detection off)"),
  SLOW_MIN_EXCESS_US("NCCL_INSPECTOR_SLOW_MIN_EXCESS_US", null, Kind.LONG, Reading.SPECIAL, null, "20",
      "... and this many microseconds over it"),
  SLOW_MAX_EVENTS("NCCL_INSPECTOR_SLOW_MAX_EVENTS", null, Kind.INT, Reading.SPECIAL, null, "5",
      "slow-collective callbacks per class and interval, the rest summed up (0: no limit)"),
  SLOW_INTERVAL_MS("NCCL_INSPECTOR_SLOW_INTERVAL_MS", null, Kind.LONG, Reading.SPECIAL, null, "10000",
      "that interval"),
  /* The core reads it because it replaces the JSON output; the Prometheus exporter's provider starts on it. */
  PROM_DUMP(InspectorVariables.PROM_DUMP, null, Kind.SWITCH, Reading.SPECIAL, null, "0",
      "`1`: write Prometheus textfiles instead of JSON"
          + " ([metrics](metrics.md#prometheus-textfiles-drop-in-for-the-references-nccl_inspector_prom_dump1);"
          + " needs `inspector-prometheus`, else `enable()` says what to add); the interval is then"
          + " `..._DUMP_THREAD_INTERVAL_MICROSECONDS`, raised to 30 s as in the reference; `SLURM_JOB_ID` fills"
          + " the `slurm_job_id` label"),
  /* Settings of the builder only. */
  LISTENER_QUEUE_CAPACITY(null, "listenerQueueCapacity", Kind.INT, Reading.NONE, 1 << 16, "65536",
      "events each listener may fall behind by", 1, Integer.MAX_VALUE, null),
  LAST_RECORDS_PER_COMMUNICATOR(null, "lastRecordsPerCommunicator", Kind.INT, Reading.NONE, 16, "16",
      "records kept per communicator for snapshots", 0, 4096, null),
  LISTENER_CLOSE_TIMEOUT(null, "listenerCloseTimeout", Kind.DURATION_MS, Reading.NONE, Duration.ofSeconds(5),
      "5000", "how long closing waits for listeners", 0, Long.MAX_VALUE, null);

  /** What a variable's value is, and the Java type the configuration holds it as. */
  enum Kind {
    /** {@code 0} or {@code 1}. */
    SWITCH(Boolean.class),
    /** An integer of 32 bits. */
    INT(Integer.class),
    /** An integer of 64 bits. */
    LONG(Long.class),
    /** A number, fractions allowed. */
    NUMBER(Double.class),
    /** An integer count of milliseconds. */
    DURATION_MS(Duration.class),
    /** An integer count of microseconds. */
    DURATION_US(Duration.class),
    /** An integer count of MiB, the setting in bytes. */
    SIZE_MB(Long.class),
    /** A path. */
    PATH(Path.class),
    /** A path, or none (null) to turn what it is for off. */
    OPTIONAL_PATH(Path.class);

    final Class<?> type;

    Kind(Class<?> type) {
      this.type = type;
    }
  }

  /** Who reads a variable. */
  enum Reading {
    /** {@link EnvironmentReader}, from this table alone. */
    PLAIN,
    /** {@link EnvironmentReader}, by code of its own. */
    SPECIAL,
    /** Nobody: a setting of the builder only. */
    NONE
  }

  final String variable;
  final String setting;
  final Kind kind;
  final Reading reading;
  /** The value a new builder holds (null where the default is computed at build time, or none). */
  final Object defaultValue;
  final String defaultText;
  final String description;
  final long min;
  final long max;
  /** The range as messages state it, where "[min, max]" is not how. */
  private final String rangeText;

  Setting(String variable, String setting, Kind kind, Reading reading, Object defaultValue, String defaultText,
      String description) {
    this(variable, setting, kind, reading, defaultValue, defaultText, description, Long.MIN_VALUE, Long.MAX_VALUE,
        null);
  }

  Setting(String variable, String setting, Kind kind, Reading reading, Object defaultValue, String defaultText,
      String description, long min, long max, String rangeText) {
    this.variable = variable;
    this.setting = setting;
    this.kind = kind;
    this.reading = reading;
    this.defaultValue = defaultValue;
    this.defaultText = defaultText;
    this.description = description;
    this.min = min;
    this.max = max;
    this.rangeText = rangeText;
  }

  /** Whether the configuration holds a value of this row (it has a builder setting of its own). */
  boolean held() {
    return setting != null;
  }

  /** Whether {@link InspectorConfig.Builder#build()} checks the value against a range. */
  boolean ranged() {
    return min != Long.MIN_VALUE || max != Long.MAX_VALUE;
  }

  /**
   * The value as the configuration holds it: of the kind's type, and not null unless the kind
   * allows none.
   *
   * @throws NullPointerException naming the setting, for a null it does not allow
   */
  Object checkedValue(Object v) {
    if (v == null) {
      if (kind != Kind.OPTIONAL_PATH) {
        throw new NullPointerException(setting);
      }
      return null;
    }
    return kind.type.cast(v);
  }

  /** Whether a value of the setting is in its range (a power of two too, for the ring). */
  boolean inRange(Object v) {
    if (v instanceof Duration d) {
      return d.compareTo(Duration.ofNanos(min)) >= 0;
    }
    long n = ((Number) v).longValue();
    return n >= min && n <= max && (this != RING_CELLS || Long.bitCount(n) == 1);
  }

  /** What {@link InspectorConfig.Builder#build()} says of a value out of range, less the value. */
  String rangeProblem() {
    if (rangeText != null) {
      return "must be " + (rangeText.startsWith("[") ? "in " : "") + rangeText + ": ";
    }
    if (max == Long.MAX_VALUE || max == Integer.MAX_VALUE) {
      return min == 0 ? "must not be negative: " : "must be positive: ";
    }
    return "must be in [" + min + ", " + max + "]: ";
  }
}
