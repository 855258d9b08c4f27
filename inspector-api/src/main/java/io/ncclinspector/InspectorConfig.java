package io.ncclinspector;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * How an inspector runs. Build one with {@link #builder()}; {@link Builder#fromEnvironment()}
 * reads the reference Inspector's environment variables, so a job configured for NVIDIA's plugin
 * behaves the same here.
 *
 * @param enabled master switch; {@code NCCL_INSPECTOR_ENABLE=0} turns {@code enable()} into a
 *     no-op inspector (the reference defaults to off because loading the plugin is the opt-in;
 *     here calling {@code enable()} is the opt-in, so the default is on)
 * @param jsonOutput write JSON Lines files ({@code NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS}
 *     below 0 turns it off, as it stops the reference's dump thread)
 * @param dumpInterval how often written records are flushed to the file
 *     ({@code NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS}; the reference's default −1 means "no
 *     output", ours is 1 s because {@code enable()} is an explicit request for output)
 * @param dumpDirectory output directory ({@code NCCL_INSPECTOR_DUMP_DIR}; default
 *     {@code nccl-inspector-<SLURM_JOBID>} or {@code nccl-inspector-unknown-jobid}, as the reference)
 * @param verbose add the per-channel {@code event_trace_*} blocks ({@code NCCL_INSPECTOR_DUMP_VERBOSE})
 * @param trackP2p track Send/Recv ({@code NCCL_INSPECTOR_ENABLE_P2P}, default on)
 * @param minMessageBytes smallest message tracked ({@code NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES}, 8192)
 * @param requireKernelTiming keep only GPU-timed records
 *     ({@code NCCL_INSPECTOR_REQUIRE_KERNEL_TIMING}, default on)
 * @param overridePlugin replace a profiler plugin that {@code NCCL_PROFILER_PLUGIN} already names
 *     ({@code NCCL_INSPECTOR_OVERRIDE_PLUGIN}, default off: {@code enable()} fails instead)
 * @param inflightOperations operations that can be in flight at once (native memory: about 3.2 KB
 *     each; {@code NCCL_INSPECTOR_INFLIGHT_OPS}, 2048)
 * @param maxCommunicators communicators that can be live at once ({@code NCCL_INSPECTOR_MAX_COMMS}, 1024)
 * @param ringCells capacity of the native record ring in 64-byte cells, a power of two
 *     ({@code NCCL_INSPECTOR_RING_CELLS}, 65536 = 4 MiB, about 21k records)
 * @param inflightExpiry how long a stopped operation may wait for its first kernel channel before
 *     it is closed with CPU timing ({@code NCCL_INSPECTOR_INFLIGHT_EXPIRY_MS}, 10 s; 0 never)
 * @param processIdentity host name and pid for the output file name and metadata
 * @param traceDirectory where the raw event recording goes ({@code trace-pid<pid>.jsonl.gz}, the
 *     format of testdata/traces/FORMAT.md, replayable with {@code bin/nccl-inspector replay}); null:
 *     no recording ({@code NCCL_INSPECTOR_TRACE_DIR})
 * @param traceMaxBytes bound of the recording, in uncompressed bytes; events past it are counted,
 *     not written ({@code NCCL_INSPECTOR_TRACE_MAX_BYTES}, 1 GiB)
 * @param slowCollectives how slow collectives are recognised and rate-limited
 *     ({@code NCCL_INSPECTOR_SLOW_FACTOR}, 5, 0 turns detection off;
 *     {@code NCCL_INSPECTOR_SLOW_MIN_EXCESS_US}, 20; {@code NCCL_INSPECTOR_SLOW_MAX_EVENTS} per class
 *     and interval, 5, 0 for no limit; {@code NCCL_INSPECTOR_SLOW_INTERVAL_MS}, 10000)
 * @param hangTimeout an operation in flight longer than this is reported to listeners as a
 *     suspected hang ({@code NCCL_INSPECTOR_HANG_TIMEOUT_MS}, 5 minutes; 0: off)
 * @param listenerQueueCapacity events each listener may fall behind by before its events are
 *     dropped and counted (65536)
 * @param lastRecordsPerCommunicator records kept per communicator for snapshots (16)
 * @param prometheus the Prometheus textfile output ({@code NCCL_INSPECTOR_PROM_DUMP=1} turns it on
 *     and, as in the reference, JSON off; its interval is then
 *     {@code NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS}, raised to 30 s; default off)
 * @param jfrEvents emit JDK Flight Recorder events (slow collectives, hangs, periodic statistics,
 *     and, when enabled in the recording's settings, every collective); they cost nothing while no
 *     recording enables them ({@code NCCL_INSPECTOR_JFR}, default on)
 * @param listenerCloseTimeout how long closing the inspector (or removing a listener) waits for
 *     listeners to finish what is queued for them (5 s, all listeners together); a listener still
 *     busy then is abandoned and counted ({@code listener_abandoned}), so nothing waits on a
 *     stuck listener, the shutdown hook included
 * @param traceBufferBytes native memory that holds recorded callbacks until the dump thread writes
 *     them ({@code NCCL_INSPECTOR_TRACE_BUFFER_MB}, 64 MiB, about 350,000 callbacks): a burst larger
 *     than it is counted ({@code trace_ring_full}), not recorded
 */
public record InspectorConfig(
    boolean enabled,
    boolean jsonOutput,
    Duration dumpInterval,
    Path dumpDirectory,
    boolean verbose,
    boolean trackP2p,
    long minMessageBytes,
    boolean requireKernelTiming,
    boolean overridePlugin,
    int inflightOperations,
    int maxCommunicators,
    int ringCells,
    Duration inflightExpiry,
    ProcessIdentity processIdentity,
    Path traceDirectory,
    long traceMaxBytes,
    SlowCollectiveDetection slowCollectives,
    Duration hangTimeout,
    int listenerQueueCapacity,
    int lastRecordsPerCommunicator,
    PrometheusTextfile prometheus,
    boolean jfrEvents,
    Duration listenerCloseTimeout,
    long traceBufferBytes) {

  public InspectorConfig {
    Objects.requireNonNull(dumpInterval, "dumpInterval");
    Objects.requireNonNull(dumpDirectory, "dumpDirectory");
    Objects.requireNonNull(inflightExpiry, "inflightExpiry");
    Objects.requireNonNull(processIdentity, "processIdentity");
    check(dumpInterval, "dumpInterval");
    checkMinMessageBytes(minMessageBytes);
    checkInflightOperations(inflightOperations);
    checkMaxCommunicators(maxCommunicators);
    checkRingCells(ringCells);
    check(inflightExpiry, "inflightExpiry");
    checkTraceMaxBytes(traceMaxBytes);
    checkTraceBufferBytes(traceBufferBytes);
    Objects.requireNonNull(slowCollectives, "slowCollectives");
    check(Objects.requireNonNull(hangTimeout, "hangTimeout"), "hangTimeout");
    if (listenerQueueCapacity < 1) {
      throw new IllegalArgumentException("listenerQueueCapacity must be positive: " + listenerQueueCapacity);
    }
    Objects.requireNonNull(prometheus, "prometheus");
    if (lastRecordsPerCommunicator < 0 || lastRecordsPerCommunicator > 4096) {
      throw new IllegalArgumentException("lastRecordsPerCommunicator must be in [0, 4096]");
    }
    check(Objects.requireNonNull(listenerCloseTimeout, "listenerCloseTimeout"), "listenerCloseTimeout");
  }

  static long checkTraceBufferBytes(long v) {
    if (v < (1L << 20) || v > (1L << 30)) {
      throw new IllegalArgumentException("traceBufferBytes must be in [1 MiB, 1 GiB]: " + v);
    }
    return v;
  }

  /** The recording's native ring in 64-byte cells: the buffer rounded down to a power of two. */
  public int traceRingCells() {
    return Integer.highestOneBit((int) (traceBufferBytes / 64));
  }

  private static long checkTraceMaxBytes(long v) {
    if (v < 0) {
      throw new IllegalArgumentException("traceMaxBytes must not be negative: " + v);
    }
    return v;
  }

  /** Whether raw event recording is on. */
  public boolean recording() {
    return traceDirectory != null;
  }

  /** The recording's file ({@code <trace dir>/trace-pid<pid>.jsonl.gz}), if recording. */
  public java.util.Optional<Path> traceFile() {
    return java.util.Optional.ofNullable(traceDirectory)
        .map(d -> d.resolve("trace-pid" + processIdentity.pid() + ".jsonl.gz"));
  }

  private static Duration check(Duration d, String name) {
    if (d.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative: " + d);
    }
    return d;
  }

  private static long checkMinMessageBytes(long v) {
    if (v < 0) {
      throw new IllegalArgumentException("minMessageBytes must not be negative: " + v);
    }
    return v;
  }

  private static int checkInflightOperations(int v) {
    if (v < 16 || v > (1 << 22)) {
      throw new IllegalArgumentException("inflightOperations must be in [16, 4194304]: " + v);
    }
    return v;
  }

  private static int checkMaxCommunicators(int v) {
    if (v < 1 || v > (1 << 16)) {
      throw new IllegalArgumentException("maxCommunicators must be in [1, 65536]: " + v);
    }
    return v;
  }

  private static int checkRingCells(int v) {
    if (v < 1024 || v > (1 << 26) || Integer.bitCount(v) != 1) {
      throw new IllegalArgumentException("ringCells must be a power of two in [1024, 2^26]: " + v);
    }
    return v;
  }

  /** The defaults, with nothing read from the environment. */
  public static InspectorConfig defaults() {
    return builder().build();
  }

  /** The defaults overridden by this process's environment variables. */
  public static InspectorConfig fromEnvironment() {
    return builder().fromEnvironment().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder initialised from this configuration. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The JSON Lines file this configuration writes to. */
  public Path outputFile() {
    return dumpDirectory.resolve(processIdentity.hostname() + "-pid" + processIdentity.pid() + ".log");
  }

  /** Mutable builder of {@link InspectorConfig}. */
  public static final class Builder {
    private boolean enabled = true;
    private boolean jsonOutput = true;
    private Duration dumpInterval = Duration.ofSeconds(1);
    private Path dumpDirectory;
    private boolean verbose;
    private boolean trackP2p = true;
    private long minMessageBytes = 8192;
    private boolean requireKernelTiming = true;
    private boolean overridePlugin;
    private int inflightOperations = 2048;
    private int maxCommunicators = 1024;
    private int ringCells = 1 << 16;
    private Duration inflightExpiry = Duration.ofSeconds(10);
    private ProcessIdentity processIdentity;
    private Path traceDirectory;
    private long traceMaxBytes = 1L << 30;
    private SlowCollectiveDetection slowCollectives = SlowCollectiveDetection.defaults();
    private Duration hangTimeout = Duration.ofMinutes(5);
    private int listenerQueueCapacity = 1 << 16;
    private int lastRecordsPerCommunicator = 16;
    private PrometheusTextfile prometheus = PrometheusTextfile.disabled();
    private boolean jfrEvents = true;
    private Duration listenerCloseTimeout = Duration.ofSeconds(5);
    private long traceBufferBytes = 64L << 20;

    private Builder() {}

    private Builder(InspectorConfig c) {
      enabled = c.enabled;
      jsonOutput = c.jsonOutput;
      dumpInterval = c.dumpInterval;
      dumpDirectory = c.dumpDirectory;
      verbose = c.verbose;
      trackP2p = c.trackP2p;
      minMessageBytes = c.minMessageBytes;
      requireKernelTiming = c.requireKernelTiming;
      overridePlugin = c.overridePlugin;
      inflightOperations = c.inflightOperations;
      maxCommunicators = c.maxCommunicators;
      ringCells = c.ringCells;
      inflightExpiry = c.inflightExpiry;
      processIdentity = c.processIdentity;
      traceDirectory = c.traceDirectory;
      traceMaxBytes = c.traceMaxBytes;
      slowCollectives = c.slowCollectives;
      hangTimeout = c.hangTimeout;
      listenerQueueCapacity = c.listenerQueueCapacity;
      lastRecordsPerCommunicator = c.lastRecordsPerCommunicator;
      prometheus = c.prometheus;
      jfrEvents = c.jfrEvents;
      listenerCloseTimeout = c.listenerCloseTimeout;
      traceBufferBytes = c.traceBufferBytes;
    }

    public Builder enabled(boolean v) {
      enabled = v;
      return this;
    }

    public Builder jsonOutput(boolean v) {
      jsonOutput = v;
      return this;
    }

    public Builder dumpInterval(Duration v) {
      dumpInterval = check(Objects.requireNonNull(v), "dumpInterval");
      return this;
    }

    public Builder dumpDirectory(Path v) {
      dumpDirectory = Objects.requireNonNull(v);
      return this;
    }

    public Builder verbose(boolean v) {
      verbose = v;
      return this;
    }

    public Builder trackP2p(boolean v) {
      trackP2p = v;
      return this;
    }

    public Builder minMessageBytes(long v) {
      minMessageBytes = checkMinMessageBytes(v);
      return this;
    }

    public Builder requireKernelTiming(boolean v) {
      requireKernelTiming = v;
      return this;
    }

    public Builder overridePlugin(boolean v) {
      overridePlugin = v;
      return this;
    }

    public Builder inflightOperations(int v) {
      inflightOperations = checkInflightOperations(v);
      return this;
    }

    public Builder maxCommunicators(int v) {
      maxCommunicators = checkMaxCommunicators(v);
      return this;
    }

    public Builder ringCells(int v) {
      ringCells = checkRingCells(v);
      return this;
    }

    public Builder inflightExpiry(Duration v) {
      inflightExpiry = check(Objects.requireNonNull(v), "inflightExpiry");
      return this;
    }

    public Builder processIdentity(ProcessIdentity v) {
      processIdentity = Objects.requireNonNull(v);
      return this;
    }

    /** Turns raw event recording on, into this directory (null turns it off). */
    public Builder traceDirectory(Path v) {
      traceDirectory = v;
      return this;
    }

    public Builder traceMaxBytes(long v) {
      traceMaxBytes = checkTraceMaxBytes(v);
      return this;
    }

    public Builder slowCollectives(SlowCollectiveDetection v) {
      slowCollectives = Objects.requireNonNull(v);
      return this;
    }

    /** Suspected-hang reports for operations in flight longer than this; zero turns them off. */
    public Builder hangTimeout(Duration v) {
      hangTimeout = check(Objects.requireNonNull(v), "hangTimeout");
      return this;
    }

    public Builder listenerQueueCapacity(int v) {
      if (v < 1) {
        throw new IllegalArgumentException("listenerQueueCapacity must be positive: " + v);
      }
      listenerQueueCapacity = v;
      return this;
    }

    public Builder lastRecordsPerCommunicator(int v) {
      lastRecordsPerCommunicator = v;
      return this;
    }

    public Builder prometheus(PrometheusTextfile v) {
      prometheus = Objects.requireNonNull(v);
      return this;
    }

    public Builder jfrEvents(boolean v) {
      jfrEvents = v;
      return this;
    }

    /** How long closing waits for listeners before abandoning those still busy (5 s). */
    /** Native buffer of the raw event recording, 1 MiB to 1 GiB (rounded down to a power of two). */
    public Builder traceBufferBytes(long v) {
      traceBufferBytes = checkTraceBufferBytes(v);
      return this;
    }

    public Builder listenerCloseTimeout(Duration v) {
      listenerCloseTimeout = check(Objects.requireNonNull(v), "listenerCloseTimeout");
      return this;
    }

    /** Applies this process's environment variables (see the record's documentation). */
    public Builder fromEnvironment() {
      return fromEnvironment(System.getenv());
    }

    /**
     * Applies the given environment. A variable that is set but malformed fails with an
     * {@link IllegalArgumentException} naming it, rather than being silently ignored.
     */
    public Builder fromEnvironment(Map<String, String> env) {
      EnvReader r = new EnvReader(env);
      r.bool("NCCL_INSPECTOR_ENABLE", this::enabled);
      boolean[] prom = {false};
      r.bool("NCCL_INSPECTOR_PROM_DUMP", v -> prom[0] = v);
      r.number("NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", Long::parseLong, us -> {
        if (prom[0]) {
          /* The reference raises any interval below 30 s to 30 s in this mode; a negative one
             means "no dump thread" there, but enable() is an explicit request for output. */
          Duration d = Duration.ofNanos(Math.multiplyExact(Math.max(us, 0), 1000L));
          prometheus(PrometheusTextfile.every(
              d.compareTo(PrometheusTextfile.MIN_INTERVAL) < 0 ? PrometheusTextfile.MIN_INTERVAL : d));
          return;
        }
        jsonOutput(us >= 0);
        if (us >= 0) {
          dumpInterval(Duration.ofNanos(Math.multiplyExact(us, 1000L)));
        }
      });
      if (prom[0]) {
        jsonOutput(false);
        if (!prometheus.enabled()) {
          prometheus(PrometheusTextfile.every(PrometheusTextfile.MIN_INTERVAL));
        }
        String job = env.get("SLURM_JOB_ID");
        if (job != null && !job.isBlank()) {
          prometheus(prometheus.withSlurmJobId(job.trim()));
        }
      }
      r.bool("NCCL_INSPECTOR_JFR", this::jfrEvents);
      r.string("NCCL_INSPECTOR_DUMP_DIR", dir -> dumpDirectory(Path.of(dir)));
      r.bool("NCCL_INSPECTOR_DUMP_VERBOSE", this::verbose);
      r.bool("NCCL_INSPECTOR_ENABLE_P2P", this::trackP2p);
      r.number("NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES", Long::parseLong, this::minMessageBytes);
      r.bool("NCCL_INSPECTOR_REQUIRE_KERNEL_TIMING", this::requireKernelTiming);
      r.bool("NCCL_INSPECTOR_OVERRIDE_PLUGIN", this::overridePlugin);
      r.number("NCCL_INSPECTOR_INFLIGHT_OPS", Integer::parseInt, this::inflightOperations);
      r.number("NCCL_INSPECTOR_MAX_COMMS", Integer::parseInt, this::maxCommunicators);
      r.number("NCCL_INSPECTOR_RING_CELLS", Integer::parseInt, this::ringCells);
      r.number("NCCL_INSPECTOR_INFLIGHT_EXPIRY_MS", Long::parseLong,
          ms -> inflightExpiry(Duration.ofMillis(ms)));
      r.string("NCCL_INSPECTOR_TRACE_DIR", dir -> traceDirectory(Path.of(dir)));
      r.number("NCCL_INSPECTOR_TRACE_MAX_BYTES", Long::parseLong, this::traceMaxBytes);
      r.number("NCCL_INSPECTOR_TRACE_BUFFER_MB", Long::parseLong, mb -> traceBufferBytes(mb << 20));
      r.number("NCCL_INSPECTOR_HANG_TIMEOUT_MS", Long::parseLong, ms -> hangTimeout(Duration.ofMillis(ms)));
      r.string("NCCL_INSPECTOR_SLOW_FACTOR", v -> {
        double factor;
        try {
          factor = Double.parseDouble(v);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("NCCL_INSPECTOR_SLOW_FACTOR must be a number, got '" + v + "'");
        }
        try {
          slowCollectives(factor == 0 ? slowCollectives.withEnabled(false) : slowCollectives.withFactor(factor));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("NCCL_INSPECTOR_SLOW_FACTOR=" + v + ": " + e.getMessage(), e);
        }
      });
      r.number("NCCL_INSPECTOR_SLOW_MIN_EXCESS_US", Long::parseLong,
          us -> slowCollectives(slowCollectives.withMinExcess(Duration.ofNanos(Math.multiplyExact(us, 1000L)))));
      r.number("NCCL_INSPECTOR_SLOW_MAX_EVENTS", Integer::parseInt,
          n -> slowCollectives(n == 0 ? slowCollectives.withoutRateLimit()
              : slowCollectives.withRateLimit(n, slowCollectives.interval())));
      r.number("NCCL_INSPECTOR_SLOW_INTERVAL_MS", Long::parseLong,
          ms -> slowCollectives(slowCollectives.withRateLimit(slowCollectives.maxEventsPerInterval(),
              Duration.ofMillis(ms))));
      String sensitivity = env.get("NCCL_INSPECTOR_SLOW_SENSITIVITY");
      if (sensitivity != null && !sensitivity.isBlank()) {
        throw new IllegalArgumentException("NCCL_INSPECTOR_SLOW_SENSITIVITY is no longer read: slow collectives are"
            + " judged against their class's 99th percentile; use NCCL_INSPECTOR_SLOW_FACTOR (0: off)");
      }
      if (dumpDirectory == null) {
        dumpDirectory = defaultDumpDirectory(env);
      }
      return this;
    }

    public InspectorConfig build() {
      Path dir = dumpDirectory != null ? dumpDirectory : defaultDumpDirectory(System.getenv());
      ProcessIdentity id = processIdentity != null ? processIdentity : ProcessIdentity.current();
      return new InspectorConfig(enabled, jsonOutput, dumpInterval, dir, verbose, trackP2p,
          minMessageBytes, requireKernelTiming, overridePlugin, inflightOperations,
          maxCommunicators, ringCells, inflightExpiry, id, traceDirectory, traceMaxBytes,
          slowCollectives, hangTimeout, listenerQueueCapacity, lastRecordsPerCommunicator, prometheus,
          jfrEvents, listenerCloseTimeout, traceBufferBytes);
    }

    /** The reference's default: {@code nccl-inspector-<SLURM_JOBID>} under the working directory. */
    static Path defaultDumpDirectory(Map<String, String> env) {
      String job = env.get("SLURM_JOBID");
      if (job != null && !job.isBlank()) {
        try {
          return Path.of("nccl-inspector-" + Long.parseLong(job.trim()));
        } catch (NumberFormatException e) {
          return Path.of("nccl-inspector-unknown-jobid");
        }
      }
      return Path.of("nccl-inspector-unknown-jobid");
    }
  }

  /** Reads typed values from an environment map, naming the variable when one is malformed. */
  private record EnvReader(Map<String, String> env) {
    void string(String name, java.util.function.Consumer<String> sink) {
      String v = env.get(name);
      if (v != null && !v.isBlank()) {
        sink.accept(v.trim());
      }
    }

    void bool(String name, java.util.function.Consumer<Boolean> sink) {
      number(name, Long::parseLong, v -> sink.accept(v != 0));
    }

    <T> void number(String name, Function<String, T> parse, java.util.function.Consumer<T> sink) {
      String v = env.get(name);
      if (v == null || v.isBlank()) {
        return;
      }
      T parsed;
      try {
        parsed = parse.apply(v.trim());
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(name + " must be an integer, got '" + v + "'", e);
      }
      try {
        sink.accept(parsed);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(name + "=" + v + ": " + e.getMessage(), e);
      }
    }
  }
}
