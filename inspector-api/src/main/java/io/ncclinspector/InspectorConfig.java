package io.ncclinspector;

import io.ncclinspector.spi.ExporterFactory;
import io.ncclinspector.spi.ExporterProvider;
import io.ncclinspector.spi.InspectorVariables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
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

  /** The value of each {@link Setting} row that has a builder setting ({@link Setting#held()}). */
  private final EnumMap<Setting, Object> values;
  private final boolean jsonOutput;
  private final ProcessIdentity processIdentity;
  private final SlowCollectiveDetection slowCollectives;
  private final List<ExporterFactory> exporters;
  private final List<String> ignoredVariables;

  private InspectorConfig(Builder b, Path dumpDirectory, ProcessIdentity processIdentity,
      List<ExporterFactory> exporters, List<String> ignoredVariables) {
    this.values = new EnumMap<>(b.values);
    this.values.put(Setting.DUMP_DIR, dumpDirectory);
    this.jsonOutput = b.jsonOutput;
    this.processIdentity = processIdentity;
    this.slowCollectives = b.slowCollectives;
    this.exporters = List.copyOf(exporters);
    this.ignoredVariables = List.copyOf(ignoredVariables);
  }

  /** The value of a setting, as its {@link Setting.Kind} types it. */
  @SuppressWarnings("unchecked")
  private <T> T get(Setting s) {
    return (T) values.get(s);
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
    return get(Setting.ENABLE);
  }

  /** Whether JSON Lines files are written (default on). */
  public boolean jsonOutput() {
    return jsonOutput;
  }

  /** How often written records are flushed to the file and exporters are told to flush (1 s). */
  public Duration dumpInterval() {
    return get(Setting.DUMP_INTERVAL);
  }

  /** Output directory ({@code nccl-inspector-<SLURM_JOBID>} or {@code nccl-inspector-unknown-jobid}). */
  public Path dumpDirectory() {
    return get(Setting.DUMP_DIR);
  }

  /** Whether records carry their per-channel event trace ({@code event_trace_*} blocks). */
  public boolean verbose() {
    return get(Setting.DUMP_VERBOSE);
  }

  /** Whether Send/Recv are tracked (default on). */
  public boolean trackP2p() {
    return get(Setting.ENABLE_P2P);
  }

  /** The smallest message tracked (8192 bytes). */
  public long minMessageBytes() {
    return get(Setting.DUMP_MIN_SIZE_BYTES);
  }

  /**
   * Whether only GPU-timed records ({@code kernel_gpu}, {@code kernel_cupti}, {@code kernel_cupti_group})
   * and quarantined ones are kept (default on); the others are dropped, counted as {@code no_gpu_timing}.
   */
  public boolean requireKernelTiming() {
    return get(Setting.REQUIRE_KERNEL_TIMING);
  }

  /** Whether kernel-channel times NCCL put out of step are recovered from later operations (default on). */
  public boolean channelRecovery() {
    return get(Setting.CHANNEL_RECOVERY);
  }

  /**
   * Whether the callbacks' CPU times come from the processor's time-stamp counter where the kernel's
   * monotonic clock is that counter (default on); off, or where it is not, from {@code clock_gettime}.
   */
  public boolean tscClock() {
    return get(Setting.TSC_CLOCK);
  }

  /** Whether callbacks only log and a thread of the core does their work ({@link Setting#DEFERRED}). */
  public boolean deferred() {
    return get(Setting.DEFERRED);
  }

  /** Whether the JSON files are written with {@code O_DIRECT} where their directory takes it (default on). */
  public boolean directIo() {
    return get(Setting.DIRECT_IO);
  }

  /** Whether CUPTI kernel records time the operations NCCL's channels cannot (default off). */
  public boolean kernelRecords() {
    return get(Setting.KERNEL_RECORDS);
  }

  /** The CUPTI library the kernel records load: a path, or "" for libcupti.so on the library path. */
  public String cuptiLibrary() {
    Path p = get(Setting.CUPTI_LIBRARY);
    return p == null ? "" : p.toString();
  }

  /** Whether kernel records start even where another copy of CUPTI is in the process (default off). */
  public boolean cuptiShared() {
    return get(Setting.CUPTI_SHARED);
  }

  /** Whether NCCL is asked for proxy events, which make each operation's network breakdown. */
  public boolean networkBreakdown() {
    return get(Setting.NETWORK_BREAKDOWN);
  }

  /** Whether a profiler plugin that {@code NCCL_PROFILER_PLUGIN} already names is replaced (default off: enable() fails). */
  public boolean overridePlugin() {
    return get(Setting.OVERRIDE_PLUGIN);
  }

  /**
   * Whether {@code enable()} sets the NCCL variables that keep known NCCL defects away from a
   * profiled job, where the program has not set them itself (default on; see
   * {@link InspectorStatus#nccl()}): today {@code NCCL_ALLGATHERV_ENABLE=0}, without which NCCL 2.29
   * and 2.30 give broadcasts no events and can hang on grouped broadcasts under a profiler.
   */
  public boolean ncclWorkarounds() {
    return get(Setting.NCCL_WORKAROUNDS);
  }

  /** Operations that can be in flight at once (2048; native memory about 11.3 KiB each). */
  public int inflightOperations() {
    return get(Setting.INFLIGHT_OPS);
  }

  /** Communicators that can be live at once (1024). */
  public int maxCommunicators() {
    return get(Setting.MAX_COMMS);
  }

  /** Capacity of the native record ring in 64-byte cells, a power of two (262144 = 16 MiB, about 87k records). */
  public int ringCells() {
    return get(Setting.RING_CELLS);
  }

  /**
   * How long a stopped operation may wait for its first kernel channel before it is closed with
   * CPU timing (10 s; zero: never).
   */
  public Duration inflightExpiry() {
    return get(Setting.INFLIGHT_EXPIRY_MS);
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
    return Optional.ofNullable(get(Setting.TRACE_DIR));
  }

  /** Whether raw event recording is on. */
  public boolean recording() {
    return values.get(Setting.TRACE_DIR) != null;
  }

  /** Bound of the recording in uncompressed bytes; events past it are counted, not written (1 GiB). */
  public long traceMaxBytes() {
    return get(Setting.TRACE_MAX_BYTES);
  }

  /**
   * Native memory that holds recorded callbacks until the dump thread writes them (64 MiB, about
   * 350,000 callbacks): a burst larger than it is counted ({@code trace_ring_full}), not recorded.
   */
  public long traceBufferBytes() {
    return get(Setting.TRACE_BUFFER_MB);
  }

  /** The recording's native ring in 64-byte cells: the buffer rounded down to a power of two. */
  public int traceRingCells() {
    return Integer.highestOneBit((int) (traceBufferBytes() / 64));
  }

  /** How slow collectives are recognised and rate-limited. */
  public SlowCollectiveDetection slowCollectives() {
    return slowCollectives;
  }

  /** In flight longer than this: reported to listeners as a suspected hang (5 minutes; zero: off). */
  public Duration hangTimeout() {
    return get(Setting.HANG_TIMEOUT_MS);
  }

  /** Events each listener may fall behind by before its events are dropped and counted (65536). */
  public int listenerQueueCapacity() {
    return get(Setting.LISTENER_QUEUE_CAPACITY);
  }

  /** Records kept per communicator for snapshots (16). */
  public int lastRecordsPerCommunicator() {
    return get(Setting.LAST_RECORDS_PER_COMMUNICATOR);
  }

  /**
   * How long closing the inspector (or removing a listener) waits for listeners to finish what is
   * queued for them (5 s, all listeners together); a listener still busy then is abandoned and
   * counted ({@code listener_abandoned}), so nothing waits on a stuck listener.
   */
  public Duration listenerCloseTimeout() {
    return get(Setting.LISTENER_CLOSE_TIMEOUT);
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
    return dumpDirectory().resolve(processIdentity.hostname() + "-pid" + processIdentity.pid() + ".log");
  }

  /** The recording's file ({@code <trace dir>/trace-pid<pid>.jsonl.gz}), if recording. */
  public Optional<Path> traceFile() {
    return traceDirectory().map(d -> d.resolve("trace-pid" + processIdentity.pid() + ".jsonl.gz"));
  }

  /**
   * The environment variables named {@code NCCL_INSPECTOR_*} that the environment this configuration
   * was read from sets and that nothing reads: neither the inspector nor any exporter module on the
   * class path (a misspelt name, or an exporter's variable without its module). {@code enable()}
   * logs them as a warning; empty for a configuration made in code.
   */
  public List<String> ignoredVariables() {
    return ignoredVariables;
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder("InspectorConfig[");
    for (Map.Entry<Setting, Object> e : values.entrySet()) {
      out.append(e.getKey().setting).append('=').append(e.getValue()).append(", ");
    }
    return out.append("jsonOutput=").append(jsonOutput).append(", processIdentity=").append(processIdentity)
        .append(", slowCollectives=").append(slowCollectives).append(", exporters=")
        .append(exporters.stream().map(ExporterFactory::name).toList()).append(']').toString();
  }

  /**
   * Builder of {@link InspectorConfig}. Setters only take values; {@link #build()} checks them all
   * at once and names the setting (and the environment variable it came from, if it did) of the
   * first that is out of range.
   */
  public static final class Builder {
    private final EnumMap<Setting, Object> values = new EnumMap<>(Setting.class);
    private boolean jsonOutput = true;
    private ProcessIdentity processIdentity;
    private SlowCollectiveDetection slowCollectives = SlowCollectiveDetection.defaults();
    private final Map<String, ExporterFactory> exporters = new LinkedHashMap<>();
    private boolean discoverExporters = true;
    /** The environment read by fromEnvironment (for exporter providers); empty otherwise. */
    private Map<String, String> environment = Map.of();
    /** Setting name to the environment variable (and value) it came from, for messages. */
    private final Map<String, String> origins = new HashMap<>();
    /** Exporters the environment asked for, with the message if none of that name is found. */
    private final Map<String, String> requiredExporters = new LinkedHashMap<>();

    private Builder() {
      for (Setting s : Setting.values()) {
        if (s.held()) {
          values.put(s, s.defaultValue);
        }
      }
    }

    private Builder(InspectorConfig c) {
      values.putAll(c.values);
      jsonOutput = c.jsonOutput;
      processIdentity = c.processIdentity;
      slowCollectives = c.slowCollectives;
      c.exporters.forEach(e -> exporters.put(e.name(), e));
      discoverExporters = false; /* the configuration's exporters were discovered already */
    }

    /** Sets a row of {@link Setting the table}; the value's type is the row's (checked here, the range at build). */
    Builder set(Setting s, Object v) {
      values.put(s, s.checkedValue(v));
      return this;
    }

    public Builder enabled(boolean v) {
      return set(Setting.ENABLE, v);
    }

    public Builder jsonOutput(boolean v) {
      jsonOutput = v;
      return this;
    }

    /** How often output is flushed (not negative). */
    public Builder dumpInterval(Duration v) {
      return set(Setting.DUMP_INTERVAL, v);
    }

    public Builder dumpDirectory(Path v) {
      return set(Setting.DUMP_DIR, v);
    }

    public Builder verbose(boolean v) {
      return set(Setting.DUMP_VERBOSE, v);
    }

    public Builder trackP2p(boolean v) {
      return set(Setting.ENABLE_P2P, v);
    }

    /** The smallest message tracked (not negative). */
    public Builder minMessageBytes(long v) {
      return set(Setting.DUMP_MIN_SIZE_BYTES, v);
    }

    /**
     * Ask NCCL for proxy events (default on): each operation on a network transport (between
     * nodes, or over sockets) gets its network breakdown ({@link OperationRecord#network()}). Off,
     * NCCL makes none of those events (they are about 13 per collective on two ranks over sockets).
     */
    public Builder networkBreakdown(boolean v) {
      return set(Setting.NETWORK_BREAKDOWN, v);
    }

    /**
     * Time the operations NCCL's kernel channels cannot by their kernel's CUPTI record (default off):
     * CUPTI is taken for the process, so not together with another CUPTI tool.
     */
    public Builder kernelRecords(boolean v) {
      return set(Setting.KERNEL_RECORDS, v);
    }

    /** The CUPTI library to load for kernel records (default: libcupti.so on the library path). */
    public Builder cuptiLibrary(Path v) {
      return set(Setting.CUPTI_LIBRARY, v);
    }

    /**
     * Start kernel records even where a libcupti the inspector did not load is in the process
     * (default off: its activity records would be taken from whoever collects them there).
     */
    public Builder cuptiShared(boolean v) {
      return set(Setting.CUPTI_SHARED, v);
    }

    /** Recover kernel-channel times NCCL put out of step (default on); off, they are withheld. */
    public Builder channelRecovery(boolean v) {
      return set(Setting.CHANNEL_RECOVERY, v);
    }

    /** CPU times from the time-stamp counter where the kernel's clock is that counter (default on). */
    public Builder tscClock(boolean v) {
      return set(Setting.TSC_CLOCK, v);
    }

    /**
     * Callbacks only log; a thread of the core does their work ({@link Setting#DEFERRED}; the
     * default). {@code false}: the callbacks do the core's work on NCCL's threads.
     */
    public Builder deferred(boolean v) {
      return set(Setting.DEFERRED, v);
    }

    /** JSON files with {@code O_DIRECT} where their directory takes it (default on). */
    public Builder directIo(boolean v) {
      return set(Setting.DIRECT_IO, v);
    }

    public Builder requireKernelTiming(boolean v) {
      return set(Setting.REQUIRE_KERNEL_TIMING, v);
    }

    public Builder overridePlugin(boolean v) {
      return set(Setting.OVERRIDE_PLUGIN, v);
    }

    /** See {@link InspectorConfig#ncclWorkarounds()}. */
    public Builder ncclWorkarounds(boolean v) {
      return set(Setting.NCCL_WORKAROUNDS, v);
    }

    /** Operations in flight at once, in [16, 2097152]. */
    public Builder inflightOperations(int v) {
      return set(Setting.INFLIGHT_OPS, v);
    }

    /** Communicators live at once, in [1, 65536]. */
    public Builder maxCommunicators(int v) {
      return set(Setting.MAX_COMMS, v);
    }

    /** Native ring cells, a power of two in [1024, 2^26]. */
    public Builder ringCells(int v) {
      return set(Setting.RING_CELLS, v);
    }

    /** In-flight expiry (not negative; zero: never). */
    public Builder inflightExpiry(Duration v) {
      return set(Setting.INFLIGHT_EXPIRY_MS, v);
    }

    public Builder processIdentity(ProcessIdentity v) {
      processIdentity = Objects.requireNonNull(v, "processIdentity");
      return this;
    }

    /** Turns raw event recording on, into this directory (null turns it off). */
    public Builder traceDirectory(Path v) {
      return set(Setting.TRACE_DIR, v);
    }

    /** Bound of the recording in uncompressed bytes (not negative). */
    public Builder traceMaxBytes(long v) {
      return set(Setting.TRACE_MAX_BYTES, v);
    }

    /** Native buffer of the raw event recording, 1 MiB to 1 GiB (rounded down to a power of two). */
    public Builder traceBufferBytes(long v) {
      return set(Setting.TRACE_BUFFER_MB, v);
    }

    public Builder slowCollectives(SlowCollectiveDetection v) {
      slowCollectives = Objects.requireNonNull(v, "slowCollectives");
      return this;
    }

    /** Suspected-hang reports for operations in flight longer than this; zero turns them off. */
    public Builder hangTimeout(Duration v) {
      return set(Setting.HANG_TIMEOUT_MS, v);
    }

    /** Events a listener may fall behind by (positive). */
    public Builder listenerQueueCapacity(int v) {
      return set(Setting.LISTENER_QUEUE_CAPACITY, v);
    }

    /** Records kept per communicator for snapshots, in [0, 4096]. */
    public Builder lastRecordsPerCommunicator(int v) {
      return set(Setting.LAST_RECORDS_PER_COMMUNICATOR, v);
    }

    /** How long closing waits for listeners before abandoning those still busy (5 s; not negative). */
    public Builder listenerCloseTimeout(Duration v) {
      return set(Setting.LISTENER_CLOSE_TIMEOUT, v);
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
      if (values.get(Setting.DUMP_DIR) == null) {
        values.put(Setting.DUMP_DIR, dir);
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
      for (Setting s : Setting.values()) {
        if (s.held() && s.ranged() && !s.inRange(values.get(s))) {
          String problem = s.setting + " " + s.rangeProblem() + values.get(s);
          String origin = origins.get(s.setting);
          throw new IllegalArgumentException(origin != null ? origin + ": " + problem : problem);
        }
      }
      Path dir = values.get(Setting.DUMP_DIR) != null ? (Path) values.get(Setting.DUMP_DIR)
          : EnvironmentReader.defaultDumpDirectory(System.getenv());
      ProcessIdentity id = processIdentity != null ? processIdentity : ProcessIdentity.current();
      List<ExporterProvider> providers = discoverExporters ? providers() : List.of();
      return new InspectorConfig(this, dir, id, resolveExporters(providers), ignoredVariables(providers));
    }

    /** The exporter modules on the class path. */
    private static List<ExporterProvider> providers() {
      List<ExporterProvider> out = new ArrayList<>();
      ServiceLoader.load(ExporterProvider.class, ExporterProvider.class.getClassLoader()).forEach(out::add);
      return out;
    }

    /**
     * The {@code NCCL_INSPECTOR_*} variables of the environment read that neither {@link Setting the
     * table} nor a provider declares, in name order.
     */
    private List<String> ignoredVariables(List<ExporterProvider> providers) {
      Set<String> read = new HashSet<>();
      for (Setting s : Setting.values()) {
        read.add(s.variable);
      }
      for (ExporterProvider p : providers) {
        p.variables().forEach(v -> read.add(v.name()));
      }
      return environment.keySet().stream().filter(k -> k.startsWith(InspectorVariables.PREFIX) && !read.contains(k))
          .sorted().toList();
    }

    private List<ExporterFactory> resolveExporters(List<ExporterProvider> providers) {
      Map<String, ExporterFactory> all = new LinkedHashMap<>(exporters);
      for (ExporterProvider p : providers) {
        if (!all.containsKey(p.name())) {
          p.fromEnvironment(environment).ifPresent(f -> all.put(f.name(), f));
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
  }
}
