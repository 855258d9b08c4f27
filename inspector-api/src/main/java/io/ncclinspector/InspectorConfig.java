package io.ncclinspector;

import io.ncclinspector.spi.ExporterFactory;
import io.ncclinspector.spi.ExporterProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.regex.Pattern;

/**
 * How an inspector runs: an immutable value made with {@link #builder()}, checked once when it is
 * built. {@link Builder#fromEnvironment()} reads the reference Inspector's environment variables
 * ({@code NCCL_INSPECTOR_*}, listed in docs/configuration.md), so a job configured for NVIDIA's
 * plugin behaves the same here; a malformed variable fails {@link Builder#build()} with a message
 * naming it.
 *
 * <p>Exporters (Prometheus textfiles, JFR events, OpenTelemetry, ...) live in modules of their
 * own: add one with {@link Builder#exporter}, or let a module on the class path turn itself on
 * ({@link ExporterProvider}, {@link Builder#discoverExporters}).
 */
public final class InspectorConfig {
  private static final Pattern EXPORTER_NAME = Pattern.compile("[a-z][a-z0-9_]*");

  private final boolean enabled;
  private final boolean jsonOutput;
  private final Duration dumpInterval;
  private final Path dumpDirectory;
  private final boolean verbose;
  private final boolean trackP2p;
  private final long minMessageBytes;
  private final boolean requireKernelTiming;
  private final boolean networkBreakdown;
  private final boolean overridePlugin;
  private final boolean ncclWorkarounds;
  private final int inflightOperations;
  private final int maxCommunicators;
  private final int ringCells;
  private final Duration inflightExpiry;
  private final ProcessIdentity processIdentity;
  private final Path traceDirectory;
  private final long traceMaxBytes;
  private final long traceBufferBytes;
  private final SlowCollectiveDetection slowCollectives;
  private final Duration hangTimeout;
  private final int listenerQueueCapacity;
  private final int lastRecordsPerCommunicator;
  private final Duration listenerCloseTimeout;
  private final List<ExporterFactory> exporters;

  private InspectorConfig(Builder b, Path dumpDirectory, ProcessIdentity processIdentity,
      List<ExporterFactory> exporters) {
    this.enabled = b.enabled;
    this.jsonOutput = b.jsonOutput;
    this.dumpInterval = b.dumpInterval;
    this.dumpDirectory = dumpDirectory;
    this.verbose = b.verbose;
    this.trackP2p = b.trackP2p;
    this.minMessageBytes = b.minMessageBytes;
    this.requireKernelTiming = b.requireKernelTiming;
    this.networkBreakdown = b.networkBreakdown;
    this.overridePlugin = b.overridePlugin;
    this.ncclWorkarounds = b.ncclWorkarounds;
    this.inflightOperations = b.inflightOperations;
    this.maxCommunicators = b.maxCommunicators;
    this.ringCells = b.ringCells;
    this.inflightExpiry = b.inflightExpiry;
    this.processIdentity = processIdentity;
    this.traceDirectory = b.traceDirectory;
    this.traceMaxBytes = b.traceMaxBytes;
    this.traceBufferBytes = b.traceBufferBytes;
    this.slowCollectives = b.slowCollectives;
    this.hangTimeout = b.hangTimeout;
    this.listenerQueueCapacity = b.listenerQueueCapacity;
    this.lastRecordsPerCommunicator = b.lastRecordsPerCommunicator;
    this.listenerCloseTimeout = b.listenerCloseTimeout;
    this.exporters = List.copyOf(exporters);
  }

  /** The defaults, with nothing read from the environment (exporters found on the class path included). */
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

  /** A builder initialised from this configuration (its exporters included, discovery off). */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Master switch; {@code NCCL_INSPECTOR_ENABLE=0} turns {@code enable()} into a no-op inspector
   * (the reference defaults to off because loading its plugin is the opt-in; here calling
   * {@code enable()} is, so the default is on).
   */
  public boolean enabled() {
    return enabled;
  }

  /** Whether JSON Lines files are written (default on). */
  public boolean jsonOutput() {
    return jsonOutput;
  }

  /** How often written records are flushed to the file and exporters are told to flush (1 s). */
  public Duration dumpInterval() {
    return dumpInterval;
  }

  /** Output directory ({@code nccl-inspector-<SLURM_JOBID>} or {@code nccl-inspector-unknown-jobid}). */
  public Path dumpDirectory() {
    return dumpDirectory;
  }

  /** Whether records carry their per-channel event trace ({@code event_trace_*} blocks). */
  public boolean verbose() {
    return verbose;
  }

  /** Whether Send/Recv are tracked (default on). */
  public boolean trackP2p() {
    return trackP2p;
  }

  /** The smallest message tracked (8192 bytes). */
  public long minMessageBytes() {
    return minMessageBytes;
  }

  /** Whether only GPU-timed ({@code kernel_gpu}) records are kept (default on). */
  public boolean requireKernelTiming() {
    return requireKernelTiming;
  }

  /** Whether NCCL is asked for proxy events, which make each operation's network breakdown. */
  public boolean networkBreakdown() {
    return networkBreakdown;
  }

  /** Whether a profiler plugin that {@code NCCL_PROFILER_PLUGIN} already names is replaced (default off: enable() fails). */
  public boolean overridePlugin() {
    return overridePlugin;
  }

  /**
   * Whether {@code enable()} sets the NCCL variables that keep known NCCL defects away from a
   * profiled job, where the program has not set them itself (default on; see
   * {@link InspectorStatus#nccl()}): today {@code NCCL_ALLGATHERV_ENABLE=0}, without which NCCL 2.29
   * and 2.30 give broadcasts no events and can hang on grouped broadcasts under a profiler.
   */
  public boolean ncclWorkarounds() {
    return ncclWorkarounds;
  }

  /** Operations that can be in flight at once (2048; native memory about 4.6 KB each). */
  public int inflightOperations() {
    return inflightOperations;
  }

  /** Communicators that can be live at once (1024). */
  public int maxCommunicators() {
    return maxCommunicators;
  }

  /** Capacity of the native record ring in 64-byte cells, a power of two (65536 = 4 MiB, about 21k records). */
  public int ringCells() {
    return ringCells;
  }

  /**
   * How long a stopped operation may wait for its first kernel channel before it is closed with
   * CPU timing (10 s; zero: never).
   */
  public Duration inflightExpiry() {
    return inflightExpiry;
  }

  /** Host name and pid for the output file name and metadata. */
  public ProcessIdentity processIdentity() {
    return processIdentity;
  }

  /**
   * Where the raw event recording goes ({@code trace-pid<pid>.jsonl.gz}, the format of
   * testdata/traces/FORMAT.md, replayable with {@code bin/nccl-inspector replay}); empty: no recording.
   */
  public Optional<Path> traceDirectory() {
    return Optional.ofNullable(traceDirectory);
  }

  /** Whether raw event recording is on. */
  public boolean recording() {
    return traceDirectory != null;
  }

  /** Bound of the recording in uncompressed bytes; events past it are counted, not written (1 GiB). */
  public long traceMaxBytes() {
    return traceMaxBytes;
  }

  /**
   * Native memory that holds recorded callbacks until the dump thread writes them (64 MiB, about
   * 350,000 callbacks): a burst larger than it is counted ({@code trace_ring_full}), not recorded.
   */
  public long traceBufferBytes() {
    return traceBufferBytes;
  }

  /** The recording's native ring in 64-byte cells: the buffer rounded down to a power of two. */
  public int traceRingCells() {
    return Integer.highestOneBit((int) (traceBufferBytes / 64));
  }

  /** How slow collectives are recognised and rate-limited. */
  public SlowCollectiveDetection slowCollectives() {
    return slowCollectives;
  }

  /** In flight longer than this: reported to listeners as a suspected hang (5 minutes; zero: off). */
  public Duration hangTimeout() {
    return hangTimeout;
  }

  /** Events each listener may fall behind by before its events are dropped and counted (65536). */
  public int listenerQueueCapacity() {
    return listenerQueueCapacity;
  }

  /** Records kept per communicator for snapshots (16). */
  public int lastRecordsPerCommunicator() {
    return lastRecordsPerCommunicator;
  }

  /**
   * How long closing the inspector (or removing a listener) waits for listeners to finish what is
   * queued for them (5 s, all listeners together); a listener still busy then is abandoned and
   * counted ({@code listener_abandoned}), so nothing waits on a stuck listener.
   */
  public Duration listenerCloseTimeout() {
    return listenerCloseTimeout;
  }

  /** The exporters started with the inspector: those added to the builder, then those discovered. */
  public List<ExporterFactory> exporters() {
    return exporters;
  }

  /** The exporter of a name, if the configuration has one. */
  public Optional<ExporterFactory> exporter(String name) {
    return exporters.stream().filter(e -> e.name().equals(name)).findFirst();
  }

  /** The JSON Lines file this configuration writes to (or, if that name is taken, the first free one after it). */
  public Path outputFile() {
    return dumpDirectory.resolve(processIdentity.hostname() + "-pid" + processIdentity.pid() + ".log");
  }

  /** The recording's file ({@code <trace dir>/trace-pid<pid>.jsonl.gz}), if recording. */
  public Optional<Path> traceFile() {
    return traceDirectory().map(d -> d.resolve("trace-pid" + processIdentity.pid() + ".jsonl.gz"));
  }

  @Override
  public String toString() {
    return "InspectorConfig[enabled=" + enabled + ", jsonOutput=" + jsonOutput + ", dumpInterval=" + dumpInterval
        + ", dumpDirectory=" + dumpDirectory + ", verbose=" + verbose + ", trackP2p=" + trackP2p
        + ", minMessageBytes=" + minMessageBytes + ", requireKernelTiming=" + requireKernelTiming + ", networkBreakdown=" + networkBreakdown
        + ", overridePlugin=" + overridePlugin + ", ncclWorkarounds=" + ncclWorkarounds
        + ", inflightOperations=" + inflightOperations
        + ", maxCommunicators=" + maxCommunicators + ", ringCells=" + ringCells + ", inflightExpiry=" + inflightExpiry
        + ", processIdentity=" + processIdentity + ", traceDirectory=" + traceDirectory + ", traceMaxBytes="
        + traceMaxBytes + ", traceBufferBytes=" + traceBufferBytes + ", slowCollectives=" + slowCollectives
        + ", hangTimeout=" + hangTimeout + ", listenerQueueCapacity=" + listenerQueueCapacity
        + ", lastRecordsPerCommunicator=" + lastRecordsPerCommunicator + ", listenerCloseTimeout="
        + listenerCloseTimeout + ", exporters=" + exporters.stream().map(ExporterFactory::name).toList() + "]";
  }

  /**
   * Builder of {@link InspectorConfig}. Setters only take values; {@link #build()} checks them all
   * at once and names the setting (and the environment variable it came from, if it did) of the
   * first that is out of range.
   */
  public static final class Builder {
    private boolean enabled = true;
    private boolean jsonOutput = true;
    private Duration dumpInterval = Duration.ofSeconds(1);
    private Path dumpDirectory;
    private boolean verbose;
    private boolean trackP2p = true;
    private long minMessageBytes = 8192;
    private boolean requireKernelTiming = true;
    private boolean networkBreakdown = true;
    private boolean overridePlugin;
    private boolean ncclWorkarounds = true;
    private int inflightOperations = 2048;
    private int maxCommunicators = 1024;
    private int ringCells = 1 << 16;
    private Duration inflightExpiry = Duration.ofSeconds(10);
    private ProcessIdentity processIdentity;
    private Path traceDirectory;
    private long traceMaxBytes = 1L << 30;
    private long traceBufferBytes = 64L << 20;
    private SlowCollectiveDetection slowCollectives = SlowCollectiveDetection.defaults();
    private Duration hangTimeout = Duration.ofMinutes(5);
    private int listenerQueueCapacity = 1 << 16;
    private int lastRecordsPerCommunicator = 16;
    private Duration listenerCloseTimeout = Duration.ofSeconds(5);
    private final Map<String, ExporterFactory> exporters = new LinkedHashMap<>();
    private boolean discoverExporters = true;
    /** The environment read by fromEnvironment (for exporter providers); empty otherwise. */
    private Map<String, String> environment = Map.of();
    /** Setting name to the environment variable (and value) it came from, for messages. */
    private final Map<String, String> origins = new HashMap<>();
    /** Exporters the environment asked for, with the message if none of that name is found. */
    private final Map<String, String> requiredExporters = new LinkedHashMap<>();

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
      networkBreakdown = c.networkBreakdown;
      overridePlugin = c.overridePlugin;
      ncclWorkarounds = c.ncclWorkarounds;
      inflightOperations = c.inflightOperations;
      maxCommunicators = c.maxCommunicators;
      ringCells = c.ringCells;
      inflightExpiry = c.inflightExpiry;
      processIdentity = c.processIdentity;
      traceDirectory = c.traceDirectory;
      traceMaxBytes = c.traceMaxBytes;
      traceBufferBytes = c.traceBufferBytes;
      slowCollectives = c.slowCollectives;
      hangTimeout = c.hangTimeout;
      listenerQueueCapacity = c.listenerQueueCapacity;
      lastRecordsPerCommunicator = c.lastRecordsPerCommunicator;
      listenerCloseTimeout = c.listenerCloseTimeout;
      c.exporters.forEach(e -> exporters.put(e.name(), e));
      discoverExporters = false; /* the configuration's exporters were discovered already */
    }

    public Builder enabled(boolean v) {
      enabled = v;
      return this;
    }

    public Builder jsonOutput(boolean v) {
      jsonOutput = v;
      return this;
    }

    /** How often output is flushed (not negative). */
    public Builder dumpInterval(Duration v) {
      dumpInterval = Objects.requireNonNull(v, "dumpInterval");
      return this;
    }

    public Builder dumpDirectory(Path v) {
      dumpDirectory = Objects.requireNonNull(v, "dumpDirectory");
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

    /** The smallest message tracked (not negative). */
    public Builder minMessageBytes(long v) {
      minMessageBytes = v;
      return this;
    }

    /**
     * Ask NCCL for proxy events (default on): each operation on a network transport (between
     * nodes, or over sockets) gets its network breakdown ({@link OperationRecord#network()}). Off,
     * NCCL makes none of those events (they are about 13 per collective on two ranks over sockets).
     */
    public Builder networkBreakdown(boolean v) {
      networkBreakdown = v;
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

    /** See {@link InspectorConfig#ncclWorkarounds()}. */
    public Builder ncclWorkarounds(boolean v) {
      ncclWorkarounds = v;
      return this;
    }

    /** Operations in flight at once, in [16, 2097152]. */
    public Builder inflightOperations(int v) {
      inflightOperations = v;
      return this;
    }

    /** Communicators live at once, in [1, 65536]. */
    public Builder maxCommunicators(int v) {
      maxCommunicators = v;
      return this;
    }

    /** Native ring cells, a power of two in [1024, 2^26]. */
    public Builder ringCells(int v) {
      ringCells = v;
      return this;
    }

    /** In-flight expiry (not negative; zero: never). */
    public Builder inflightExpiry(Duration v) {
      inflightExpiry = Objects.requireNonNull(v, "inflightExpiry");
      return this;
    }

    public Builder processIdentity(ProcessIdentity v) {
      processIdentity = Objects.requireNonNull(v, "processIdentity");
      return this;
    }

    /** Turns raw event recording on, into this directory (null turns it off). */
    public Builder traceDirectory(Path v) {
      traceDirectory = v;
      return this;
    }

    /** Bound of the recording in uncompressed bytes (not negative). */
    public Builder traceMaxBytes(long v) {
      traceMaxBytes = v;
      return this;
    }

    /** Native buffer of the raw event recording, 1 MiB to 1 GiB (rounded down to a power of two). */
    public Builder traceBufferBytes(long v) {
      traceBufferBytes = v;
      return this;
    }

    public Builder slowCollectives(SlowCollectiveDetection v) {
      slowCollectives = Objects.requireNonNull(v, "slowCollectives");
      return this;
    }

    /** Suspected-hang reports for operations in flight longer than this; zero turns them off. */
    public Builder hangTimeout(Duration v) {
      hangTimeout = Objects.requireNonNull(v, "hangTimeout");
      return this;
    }

    /** Events a listener may fall behind by (positive). */
    public Builder listenerQueueCapacity(int v) {
      listenerQueueCapacity = v;
      return this;
    }

    /** Records kept per communicator for snapshots, in [0, 4096]. */
    public Builder lastRecordsPerCommunicator(int v) {
      lastRecordsPerCommunicator = v;
      return this;
    }

    /** How long closing waits for listeners before abandoning those still busy (5 s; not negative). */
    public Builder listenerCloseTimeout(Duration v) {
      listenerCloseTimeout = Objects.requireNonNull(v, "listenerCloseTimeout");
      return this;
    }

    /** Adds an exporter, replacing one of the same name (one discovered on the class path too). */
    public Builder exporter(ExporterFactory factory) {
      Objects.requireNonNull(factory, "factory");
      exporters.put(factory.name(), factory);
      return this;
    }

    /** Removes the exporter of a name, and keeps discovery from adding one of that name. */
    public Builder withoutExporter(String name) {
      exporters.remove(name);
      exporters.put(name, null);
      return this;
    }

    /**
     * Whether exporter modules on the class path are asked whether they start
     * ({@link ExporterProvider}; default on).
     */
    public Builder discoverExporters(boolean v) {
      discoverExporters = v;
      return this;
    }

    /** Applies this process's environment variables. */
    public Builder fromEnvironment() {
      return fromEnvironment(System.getenv());
    }

    /**
     * Applies the given environment ({@code NCCL_INSPECTOR_*}, {@code SLURM_JOBID}); exporter
     * providers found at {@link #build()} read it too. A variable that is set but malformed fails
     * with an {@link IllegalArgumentException} naming it, here or at {@link #build()}.
     */
    public Builder fromEnvironment(Map<String, String> env) {
      environment = Map.copyOf(env);
      new EnvironmentReader(env, this).apply();
      return this;
    }

    /** Remembers that a setting came from an environment variable (for messages). */
    void origin(String setting, String variable, String value) {
      origins.put(setting, variable + "=" + value);
    }

    /** The environment asked for an exporter of a name; build() fails with the message if none is found. */
    void requireExporter(String name, String message) {
      requiredExporters.put(name, message);
    }

    void dumpDirectoryUnlessSet(Path dir) {
      if (dumpDirectory == null) {
        dumpDirectory = dir;
      }
    }

    SlowCollectiveDetection slowCollectivesSoFar() {
      return slowCollectives;
    }

    /**
     * Checks every setting and builds the configuration; exporter providers are asked now.
     *
     * @throws IllegalArgumentException naming the first setting out of range (and the environment
     *     variable it came from), or an exporter the environment asked for that is not there
     */
    public InspectorConfig build() {
      check(Setting.DUMP_INTERVAL, dumpInterval);
      check(Setting.DUMP_MIN_SIZE_BYTES, minMessageBytes);
      check(Setting.INFLIGHT_OPS, inflightOperations);
      check(Setting.MAX_COMMS, maxCommunicators);
      check(Setting.RING_CELLS, ringCells);
      check(Setting.INFLIGHT_EXPIRY_MS, inflightExpiry);
      check(Setting.TRACE_MAX_BYTES, traceMaxBytes);
      check(Setting.TRACE_BUFFER_MB, traceBufferBytes);
      check(Setting.HANG_TIMEOUT_MS, hangTimeout);
      check(Setting.LISTENER_QUEUE_CAPACITY, listenerQueueCapacity);
      check(Setting.LAST_RECORDS_PER_COMMUNICATOR, lastRecordsPerCommunicator);
      check(Setting.LISTENER_CLOSE_TIMEOUT, listenerCloseTimeout);
      Path dir = dumpDirectory != null ? dumpDirectory : EnvironmentReader.defaultDumpDirectory(System.getenv());
      ProcessIdentity id = processIdentity != null ? processIdentity : ProcessIdentity.current();
      return new InspectorConfig(this, dir, id, resolveExporters());
    }

    private List<ExporterFactory> resolveExporters() {
      Map<String, ExporterFactory> all = new LinkedHashMap<>(exporters);
      if (discoverExporters) {
        for (ExporterProvider p : ServiceLoader.load(ExporterProvider.class, ExporterProvider.class.getClassLoader())) {
          if (!all.containsKey(p.name())) {
            p.fromEnvironment(environment).ifPresent(f -> all.put(f.name(), f));
          }
        }
      }
      List<ExporterFactory> out = new ArrayList<>();
      for (Map.Entry<String, ExporterFactory> e : all.entrySet()) {
        ExporterFactory f = e.getValue();
        if (f == null) {
          continue; /* withoutExporter */
        }
        if (!EXPORTER_NAME.matcher(f.name()).matches() || !f.name().equals(e.getKey())) {
          throw new IllegalArgumentException("exporter name '" + f.name()
              + "' must be lower case letters, digits and underscores, starting with a letter");
        }
        out.add(f);
      }
      for (Map.Entry<String, String> required : requiredExporters.entrySet()) {
        if (out.stream().noneMatch(f -> f.name().equals(required.getKey()))) {
          throw new IllegalArgumentException(required.getValue());
        }
      }
      return out;
    }

    /** Checks a value against the range of {@link Setting the table}. */
    private void check(Setting s, long v) {
      check(s.inRange(v), s.setting, s.rangeProblem() + v);
    }

    private void check(Setting s, Duration d) {
      check(s.inRange(d), s.setting, s.rangeProblem() + d);
    }

    private void check(boolean ok, String setting, String problem) {
      if (!ok) {
        String origin = origins.get(setting);
        throw new IllegalArgumentException(origin != null ? origin + ": " + setting + " " + problem
            : setting + " " + problem);
      }
    }
  }
}
