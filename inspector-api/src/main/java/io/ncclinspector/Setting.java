package io.ncclinspector;

import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.ObjLongConsumer;

/**
 * The table of the inspector's settings: for each, the environment variable (null for a setting
 * only the builder has), the builder setting it sets (the name messages use), how the variable is
 * read, its default and meaning as docs/configuration.md states them, and the range that
 * {@link InspectorConfig.Builder#build()} checks. {@link EnvironmentReader} reads the
 * {@link Reading#PLAIN} rows from here; the others are read by code of their own and listed here
 * for the configuration reference, which ConfigurationReferenceTest generates from this table.
 */
enum Setting {
  ENABLE("NCCL_INSPECTOR_ENABLE", "enabled", Kind.SWITCH, Reading.PLAIN, "1",
      "`0` makes `enable()` return an inactive inspector (the reference defaults to 0 because loading its plugin"
          + " is the opt-in; here calling `enable()` is)",
      on(InspectorConfig.Builder::enabled)),
  DUMP_INTERVAL("NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", "dumpInterval", Kind.DURATION_US,
      Reading.SPECIAL, "1000000",
      "how often output is flushed; below 0: no JSON output (the reference's default −1 means no output at all;"
          + " `enable()` is an explicit request for output)",
      null, 0, Long.MAX_VALUE, null),
  DUMP_DIR("NCCL_INSPECTOR_DUMP_DIR", "dumpDirectory", Kind.PATH, Reading.PLAIN,
      "`nccl-inspector-<SLURM_JOBID>` or `nccl-inspector-unknown-jobid`", "output directory",
      path(InspectorConfig.Builder::dumpDirectory)),
  DUMP_VERBOSE("NCCL_INSPECTOR_DUMP_VERBOSE", "verbose", Kind.SWITCH, Reading.PLAIN, "0",
      "add `event_trace_sn` / `event_trace_ts` per record", on(InspectorConfig.Builder::verbose)),
  ENABLE_P2P("NCCL_INSPECTOR_ENABLE_P2P", "trackP2p", Kind.SWITCH, Reading.PLAIN, "1", "track Send/Recv",
      on(InspectorConfig.Builder::trackP2p)),
  DUMP_MIN_SIZE_BYTES("NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES", "minMessageBytes", Kind.LONG, Reading.PLAIN, "8192",
      "smallest message tracked", number(InspectorConfig.Builder::minMessageBytes), 0, Long.MAX_VALUE, null),
  REQUIRE_KERNEL_TIMING("NCCL_INSPECTOR_REQUIRE_KERNEL_TIMING", "requireKernelTiming", Kind.SWITCH, Reading.PLAIN,
      "1", "keep only GPU-timed (`kernel_gpu`) records", on(InspectorConfig.Builder::requireKernelTiming)),
  NETWORK_BREAKDOWN("NCCL_INSPECTOR_NETWORK_BREAKDOWN", "networkBreakdown", Kind.SWITCH, Reading.PLAIN, "1",
      "ask NCCL for proxy events and give each operation on a network transport its network breakdown"
          + " (`*_net_*` fields: [Output](output.md#network-breakdown)); read at each communicator's init",
      on(InspectorConfig.Builder::networkBreakdown)),
  OVERRIDE_PLUGIN("NCCL_INSPECTOR_OVERRIDE_PLUGIN", "overridePlugin", Kind.SWITCH, Reading.PLAIN, "0",
      "replace a plugin `NCCL_PROFILER_PLUGIN` already names", on(InspectorConfig.Builder::overridePlugin)),
  NCCL_WORKAROUNDS("NCCL_INSPECTOR_NCCL_WORKAROUNDS", "ncclWorkarounds", Kind.SWITCH, Reading.PLAIN, "1",
      "set the NCCL variables that keep known NCCL defects away from the job, where the program has not set them"
          + " (today `NCCL_ALLGATHERV_ENABLE=0`: [NCCL releases](nccl-defects-and-releases.md#nccl-releases))",
      on(InspectorConfig.Builder::ncclWorkarounds)),
  INFLIGHT_OPS("NCCL_INSPECTOR_INFLIGHT_OPS", "inflightOperations", Kind.INT, Reading.PLAIN, "2048",
      "operations in flight at once, at most 2097152 (9.2 KB of native memory each: its kernel channels and its"
          + " network breakdown's proxy operations with their steps in flight)",
      number((b, v) -> b.inflightOperations((int) v)), 16, 1 << 21, null),
  MAX_COMMS("NCCL_INSPECTOR_MAX_COMMS", "maxCommunicators", Kind.INT, Reading.PLAIN, "1024",
      "communicators live at once", number((b, v) -> b.maxCommunicators((int) v)), 1, 1 << 16, null),
  RING_CELLS("NCCL_INSPECTOR_RING_CELLS", "ringCells", Kind.INT, Reading.PLAIN, "65536",
      "native record ring, 64-byte cells (4 MiB, about 21k records)",
      number((b, v) -> b.ringCells((int) v)), 1024, 1 << 26, "a power of two in [1024, 2^26]"),
  INFLIGHT_EXPIRY_MS("NCCL_INSPECTOR_INFLIGHT_EXPIRY_MS", "inflightExpiry", Kind.DURATION_MS, Reading.PLAIN,
      "10000", "a stopped operation that no kernel channel joined within this time is closed with CPU timing"
          + " (0: never)",
      duration(InspectorConfig.Builder::inflightExpiry), 0, Long.MAX_VALUE, null),
  TRACE_DIR("NCCL_INSPECTOR_TRACE_DIR", "traceDirectory", Kind.PATH, Reading.PLAIN, "(off)",
      "record every callback NCCL makes into `trace-pid<pid>.jsonl.gz` there, replayable with"
          + " `bin/nccl-inspector replay`",
      path(InspectorConfig.Builder::traceDirectory)),
  TRACE_MAX_BYTES("NCCL_INSPECTOR_TRACE_MAX_BYTES", "traceMaxBytes", Kind.LONG, Reading.PLAIN, "1 GiB",
      "bound of that recording (uncompressed); further callbacks are counted, not written",
      number(InspectorConfig.Builder::traceMaxBytes), 0, Long.MAX_VALUE, null),
  TRACE_BUFFER_MB("NCCL_INSPECTOR_TRACE_BUFFER_MB", "traceBufferBytes", Kind.SIZE_MB, Reading.PLAIN, "64",
      "native buffer of that recording (about 350,000 callbacks); a burst beyond it is counted"
          + " (`trace_ring_full`), not recorded",
      number(InspectorConfig.Builder::traceBufferBytes), 1L << 20, 1L << 30, "[1 MiB, 1 GiB]"),
  HANG_TIMEOUT_MS("NCCL_INSPECTOR_HANG_TIMEOUT_MS", "hangTimeout", Kind.DURATION_MS, Reading.PLAIN, "300000",
      "in flight longer than this: reported to listeners as a suspected hang (0: off)",
      duration(InspectorConfig.Builder::hangTimeout), 0, Long.MAX_VALUE, null),
  SLOW_FACTOR("NCCL_INSPECTOR_SLOW_FACTOR", null, Kind.NUMBER, Reading.SPECIAL, "5",
      "a collective is slow from this many times its class's normal upper bound (0: detection off)", null),
  SLOW_MIN_EXCESS_US("NCCL_INSPECTOR_SLOW_MIN_EXCESS_US", null, Kind.LONG, Reading.SPECIAL, "20",
      "... and this many microseconds over it", null),
  SLOW_MAX_EVENTS("NCCL_INSPECTOR_SLOW_MAX_EVENTS", null, Kind.INT, Reading.SPECIAL, "5",
      "slow-collective callbacks per class and interval, the rest summed up (0: no limit)", null),
  SLOW_INTERVAL_MS("NCCL_INSPECTOR_SLOW_INTERVAL_MS", null, Kind.LONG, Reading.SPECIAL, "10000", "that interval",
      null),
  PROM_DUMP("NCCL_INSPECTOR_PROM_DUMP", "prometheus", Kind.SWITCH, Reading.SPECIAL, "0",
      "`1`: write Prometheus textfiles instead of JSON"
          + " ([metrics](metrics.md#prometheus-textfiles-drop-in-for-the-references-nccl_inspector_prom_dump1);"
          + " needs `inspector-prometheus`, else `enable()` says what to add); the interval is then"
          + " `..._DUMP_THREAD_INTERVAL_MICROSECONDS`, raised to 30 s as in the reference; `SLURM_JOB_ID` fills"
          + " the `slurm_job_id` label",
      null),
  JFR("NCCL_INSPECTOR_JFR", "jfr", Kind.SWITCH, Reading.EXPORTER, "1",
      "emit JDK Flight Recorder events ([metrics](metrics.md#jdk-flight-recorder)), where `inspector-jfr` is on"
          + " the class path",
      null),
  OTEL("NCCL_INSPECTOR_OTEL", "otel", Kind.SWITCH, Reading.EXPORTER, "0",
      "`1`: OpenTelemetry metrics into `GlobalOpenTelemetry` ([metrics](metrics.md#opentelemetry)), where"
          + " `inspector-opentelemetry` is on the class path",
      null),
  /* Settings of the builder only. */
  LISTENER_QUEUE_CAPACITY(null, "listenerQueueCapacity", Kind.INT, Reading.NONE, "65536",
      "events each listener may fall behind by", null, 1, Integer.MAX_VALUE, null),
  LAST_RECORDS_PER_COMMUNICATOR(null, "lastRecordsPerCommunicator", Kind.INT, Reading.NONE, "16",
      "records kept per communicator for snapshots", null, 0, 4096, null),
  LISTENER_CLOSE_TIMEOUT(null, "listenerCloseTimeout", Kind.DURATION_MS, Reading.NONE, "5000",
      "how long closing waits for listeners", null, 0, Long.MAX_VALUE, null);

  /** What a variable's value is. */
  enum Kind {
    /** {@code 0} or {@code 1}. */
    SWITCH,
    /** An integer of 32 bits. */
    INT,
    /** An integer of 64 bits. */
    LONG,
    /** A number, fractions allowed. */
    NUMBER,
    /** An integer count of milliseconds. */
    DURATION_MS,
    /** An integer count of microseconds. */
    DURATION_US,
    /** An integer count of MiB, the setting in bytes. */
    SIZE_MB,
    /** A path. */
    PATH
  }

  /** Who reads a variable. */
  enum Reading {
    /** {@link EnvironmentReader}, from this table alone. */
    PLAIN,
    /** {@link EnvironmentReader}, by code of its own. */
    SPECIAL,
    /** An exporter's provider; the core only checks that the switch is well-formed. */
    EXPORTER,
    /** Nobody: a setting of the builder only. */
    NONE
  }

  final String variable;
  final String setting;
  final Kind kind;
  final Reading reading;
  final String defaultText;
  final String description;
  /** Sets the builder from the variable's value, converted by {@link Kind}: Boolean, Long, Duration or Path. */
  final BiConsumer<InspectorConfig.Builder, Object> apply;
  final long min;
  final long max;
  /** The range as messages state it, where "[min, max]" is not how. */
  private final String rangeText;

  Setting(String variable, String setting, Kind kind, Reading reading, String defaultText, String description,
      BiConsumer<InspectorConfig.Builder, Object> apply) {
    this(variable, setting, kind, reading, defaultText, description, apply, Long.MIN_VALUE, Long.MAX_VALUE, null);
  }

  Setting(String variable, String setting, Kind kind, Reading reading, String defaultText, String description,
      BiConsumer<InspectorConfig.Builder, Object> apply, long min, long max, String rangeText) {
    this.variable = variable;
    this.setting = setting;
    this.kind = kind;
    this.reading = reading;
    this.defaultText = defaultText;
    this.description = description;
    this.apply = apply;
    this.min = min;
    this.max = max;
    this.rangeText = rangeText;
  }

  /** Whether a value of the setting is in its range (a power of two too, for the ring). */
  boolean inRange(long v) {
    return v >= min && v <= max && (this != RING_CELLS || Long.bitCount(v) == 1);
  }

  /** Whether a duration is in the setting's range (min and max in nanoseconds). */
  boolean inRange(Duration d) {
    return d.compareTo(Duration.ofNanos(min)) >= 0;
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

  private static BiConsumer<InspectorConfig.Builder, Object> on(BiConsumer<InspectorConfig.Builder, Boolean> f) {
    return (b, v) -> f.accept(b, (Boolean) v);
  }

  private static BiConsumer<InspectorConfig.Builder, Object> number(ObjLongConsumer<InspectorConfig.Builder> f) {
    return (b, v) -> f.accept(b, (Long) v);
  }

  private static BiConsumer<InspectorConfig.Builder, Object> duration(BiConsumer<InspectorConfig.Builder, Duration> f) {
    return (b, v) -> f.accept(b, (Duration) v);
  }

  private static BiConsumer<InspectorConfig.Builder, Object> path(BiConsumer<InspectorConfig.Builder, Path> f) {
    return (b, v) -> f.accept(b, (Path) v);
  }
}
