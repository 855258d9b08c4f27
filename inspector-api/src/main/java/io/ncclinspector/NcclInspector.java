package io.ncclinspector;

import io.ncclinspector.internal.AnalysisSink;
import io.ncclinspector.internal.AsyncSink;
import io.ncclinspector.internal.CommunicatorRegistry;
import io.ncclinspector.internal.DumpThread;
import io.ncclinspector.internal.HangWatchdog;
import io.ncclinspector.internal.JsonFileSink;
import io.ncclinspector.internal.JsonLinesWriter;
import io.ncclinspector.internal.ListenerDispatcher;
import io.ncclinspector.internal.NativeCore;
import io.ncclinspector.internal.PluginEnvironment;
import io.ncclinspector.internal.RecordDecoder;
import io.ncclinspector.internal.RecordSink;
import io.ncclinspector.internal.SlowCollectiveDetector;
import io.ncclinspector.internal.SlowCollectiveRateLimiter;
import io.ncclinspector.internal.StatisticsStore;
import io.ncclinspector.internal.ThreadTags;
import io.ncclinspector.internal.TraceRecording;
import io.ncclinspector.internal.prometheus.PrometheusTextfileSink;
import io.ncclinspector.jfr.JfrEvents;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.Flushable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In-process NCCL collective observability.
 *
 * <pre>{@code
 * try (NcclInspector inspector = NcclInspector.enable()) {
 *   inspector.addListener(new InspectorListener() {
 *     public void slowCollective(SlowCollectiveEvent e) { log.warn(e.describe()); }
 *     public void slowCollectivesSuppressed(SlowCollectiveSummary s) { log.warn(s.describe()); }
 *   });
 *   for (long step = 0; ; step++) {
 *     inspector.step(step);
 *     try (Phase p = inspector.phase("backward")) { ... }   // collectives enqueued here are tagged
 *   }
 * }
 * }</pre>
 *
 * <p>{@link #enable()} loads the native core, points NCCL at it ({@code NCCL_PROFILER_PLUGIN})
 * and starts the JVM threads that drain it. Call it before the first NCCL communicator of the
 * process is created: NCCL looks for its profiler plugin once, at the first communicator init
 * (and again only after all communicators are destroyed).
 *
 * <p>One inspector is active per process at a time, because NCCL has one profiler slot per
 * process. Enabling a second one while the first is open fails with an
 * {@link IllegalStateException}; use {@link #current()} to share the active one. {@link #close()}
 * (also run at JVM shutdown) flushes operations still in flight and delivers every completed record
 * before returning; closing twice is harmless.
 *
 * <p>Threads: {@code nccl-inspector-dump} drains the native ring; {@code nccl-inspector-json-writer}
 * writes the JSON Lines file; {@code nccl-inspector-analysis} keeps the statistics and finds slow
 * collectives; {@code nccl-inspector-watchdog} looks for hangs; each listener has its own thread.
 * None of them ever blocks NCCL.
 */
public final class NcclInspector implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NcclInspector.class);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);
  /**
   * Records the JSON writer and the analysis may each fall behind the dump thread by (absorbing
   * disk stalls and bursts) before records are dropped and counted.
   */
  private static final int BACKLOG = 1 << 18;
  /** Native ring of the raw event recording: 65536 cells (4 MiB), about 21k callbacks. */
  private static final Object LOCK = new Object();
  /* Written under LOCK; read without it, so that current() never waits for a close in progress
     (a listener asking for the inspector from its callback while close waits for it). */
  private static volatile NcclInspector active;

  private final InspectorConfig config;
  private final NativeCore core;
  private final Parts parts;
  private final Thread shutdownHook;
  private volatile boolean closed;

  /** What an active inspector runs; null for an inspector disabled by configuration. */
  private record Parts(
      CommunicatorRegistry communicators,
      JsonFileSink jsonSink,
      AsyncSink jsonWriter,
      StatisticsStore statistics,
      AsyncSink analysis,
      ListenerDispatcher listeners,
      DumpThread dumpThread,
      HangWatchdog watchdog,
      TraceRecording recording,
      PrometheusTextfileSink prometheus,
      AsyncSink prometheusWriter,
      JfrEvents jfr) {}

  private NcclInspector(InspectorConfig config, NativeCore core, Parts parts) {
    this.config = config;
    this.core = core;
    this.parts = parts;
    this.shutdownHook = core == null ? null : new Thread(this::closeAtShutdown, "nccl-inspector-shutdown");
  }

  /** Enables the inspector configured from the environment ({@link InspectorConfig#fromEnvironment()}). */
  public static NcclInspector enable() {
    return enable(InspectorConfig.fromEnvironment());
  }

  /**
   * Enables the inspector with the given configuration.
   *
   * @throws IllegalStateException if an inspector is already active in this process, or if
   *     {@code NCCL_PROFILER_PLUGIN} names another plugin and the configuration does not override it
   */
  public static NcclInspector enable(InspectorConfig config) {
    synchronized (LOCK) {
      if (active != null && !active.closed) {
        throw new IllegalStateException("an NCCL Inspector is already enabled in this process (output "
            + active.config.outputFile() + "); close it first, or share it through NcclInspector.current()");
      }
      if (!config.enabled()) {
        log.info("NCCL Inspector disabled by configuration (NCCL_INSPECTOR_ENABLE=0): not profiling");
        return new NcclInspector(config, null, null);
      }
      NativeCore core = NativeCore.get();
      PluginEnvironment.claim(core, core.libraryPath(), config.overridePlugin());
      int rc = core.enable(config.inflightOperations(), config.maxCommunicators(), config.ringCells(),
          config.minMessageBytes(), config.trackP2p(), config.verbose(), config.requireKernelTiming(),
          config.inflightExpiry().toNanos());
      if (rc < 0) {
        throw new IllegalStateException("the native NCCL Inspector core refused to start (code " + rc + ")");
      }
      if (rc == 1) {
        log.warn("NCCL Inspector: communicators from an earlier session are still alive; the native "
            + "table sizes of that session are kept");
      }
      AtomicReference<NcclInspector> self = new AtomicReference<>();
      NcclInspector inspector = new NcclInspector(config, core, start(config, core, self));
      self.set(inspector);
      Runtime.getRuntime().addShutdownHook(inspector.shutdownHook);
      active = inspector;
      log.info("NCCL Inspector enabled: {}={}{}", PluginEnvironment.PLUGIN_VARIABLE, core.libraryPath(),
          inspector.outputFile().map(f -> ", output " + f).orElse(""));
      return inspector;
    }
  }

  private static Parts start(InspectorConfig config, NativeCore core, AtomicReference<NcclInspector> self) {
    CommunicatorRegistry communicators = new CommunicatorRegistry();
    List<RecordSink> sinks = new ArrayList<>();
    JsonFileSink json = null;
    AsyncSink jsonWriter = null;
    if (config.jsonOutput()) {
      json = JsonFileSink.open(config, gitRevision());
      jsonWriter = new AsyncSink(json, "nccl-inspector-json-writer", BACKLOG);
      sinks.add(jsonWriter);
    }
    PrometheusTextfileSink prometheus = null;
    AsyncSink prometheusWriter = null;
    if (config.prometheus().enabled()) {
      PrometheusTextfile p = config.prometheus();
      prometheus = new PrometheusTextfileSink(config.dumpDirectory(), p.interval(), p.removeFilesOnClose(),
          config.processIdentity().hostname(), config.processIdentity().pid(), p.slurmJobId(),
          () -> self.get() == null ? EventCounters.empty() : self.get().counters(),
          () -> self.get() == null ? 0 : self.get().recordsReceived());
      prometheusWriter = new AsyncSink(prometheus, "nccl-inspector-prometheus", BACKLOG);
      sinks.add(prometheusWriter);
    }
    ListenerDispatcher listeners = new ListenerDispatcher(config.listenerCloseTimeout());
    StatisticsStore statistics = new StatisticsStore(config.lastRecordsPerCommunicator());
    JfrEvents jfr = config.jfrEvents() && jfrAvailable()
        ? new JfrEvents(() -> self.get() == null ? emptySnapshot() : self.get().snapshot()) : null;
    SlowCollectiveDetection slow = config.slowCollectives();
    AsyncSink analysis = new AsyncSink(new AnalysisSink(statistics, new SlowCollectiveDetector(slow),
        new SlowCollectiveRateLimiter(slow.maxEventsPerInterval(), slow.interval()), listeners, jfr, System::nanoTime),
        "nccl-inspector-analysis", BACKLOG);
    sinks.add(analysis);
    sinks.add(listeners); /* last: it is closed after the analysis, which may still report */
    TraceRecording recording = config.recording()
        ? TraceRecording.start(config.traceDirectory(), config.processIdentity().pid(), config.traceMaxBytes(),
            config.traceRingCells())
        : null;
    DumpThread thread = new DumpThread(core, new RecordDecoder(core, communicators), sinks,
        config.dumpInterval(), recording);
    thread.start();
    HangWatchdog watchdog = config.hangTimeout().isZero() ? null
        : new HangWatchdog(core, communicators, listeners, config.hangTimeout(), jfr);
    return new Parts(communicators, json, jsonWriter, statistics, analysis, listeners, thread, watchdog, recording,
        prometheus, prometheusWriter, jfr);
  }

  /** The inspector active in this process, if one is. */
  public static Optional<NcclInspector> current() {
    NcclInspector a = active;
    return a != null && !a.closed ? Optional.of(a) : Optional.empty();
  }

  public InspectorConfig config() {
    return config;
  }

  /** False for an inspector disabled by configuration, and after close. */
  public boolean isActive() {
    return core != null && !closed;
  }

  // ---- listeners ----

  /** Listens to every communicator. */
  public ListenerRegistration addListener(InspectorListener listener) {
    return addListener(CommunicatorSelector.all(), listener);
  }

  /**
   * Listens to the communicators a selector picks. The listener first hears of the communicators
   * already live, then of everything that happens, on its own thread.
   */
  public ListenerRegistration addListener(CommunicatorSelector selector, InspectorListener listener) {
    return addListener(selector, listener, config.listenerQueueCapacity());
  }

  /**
   * As {@link #addListener(CommunicatorSelector, InspectorListener)}, with this listener's own
   * queue capacity: the events it may fall behind by before its events are dropped and counted.
   */
  public ListenerRegistration addListener(CommunicatorSelector selector, InspectorListener listener,
      int queueCapacity) {
    Objects.requireNonNull(selector, "selector");
    Objects.requireNonNull(listener, "listener");
    if (queueCapacity < 1) {
      throw new IllegalArgumentException("queue capacity must be positive: " + queueCapacity);
    }
    if (!isActive()) {
      return InactiveRegistration.INSTANCE;
    }
    return parts.listeners().add(selector, listener, true, false, queueCapacity);
  }

  // ---- tags ----

  /**
   * Tags the collectives the calling thread enqueues from now on with a training step. The tag is
   * captured when NCCL calls the plugin on the enqueuing thread, so it is right even when the
   * operation completes much later or its events come from another thread. It stays until the
   * next call or {@link #clearStep()}.
   */
  public void step(long step) {
    if (isActive()) {
      ThreadTags.step(step);
    }
  }

  /** Removes the calling thread's step tag. */
  public void clearStep() {
    if (isActive()) {
      ThreadTags.clearStep();
    }
  }

  /**
   * Tags the collectives the calling thread enqueues until the returned phase is closed (phases
   * nest: closing restores the previous one).
   */
  public Phase phase(String name) {
    Objects.requireNonNull(name, "name");
    if (!isActive()) {
      return new Phase() {
        @Override
        public String name() {
          return name;
        }

        @Override
        public void close() {}
      };
    }
    return ThreadTags.phase(name);
  }

  // ---- runtime control ----

  /** Stops tracking new operations (those in flight complete); counted as {@code paused}. */
  public void pause() {
    if (isActive()) {
      core.setPaused(true);
    }
  }

  public void resume() {
    if (isActive()) {
      core.setPaused(false);
    }
  }

  public boolean isPaused() {
    return isActive() && core.state() == NativeCore.STATE_PAUSED;
  }

  /** Changes the smallest message tracked, for operations that start from now on. */
  public void setMinMessageBytes(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("minimum message size must not be negative: " + bytes);
    }
    if (isActive()) {
      core.setMinMessageBytes(bytes);
    }
  }

  // ---- snapshots and export ----

  /**
   * An immutable view of what the inspector has seen so far. Records still on their way from the
   * native ring (a few milliseconds' worth) are not in it yet.
   */
  public InspectorSnapshot snapshot() {
    if (parts == null) {
      return emptySnapshot();
    }
    return new InspectorSnapshot(Instant.now().truncatedTo(ChronoUnit.MICROS), parts.statistics().snapshot(),
        counters(), recordsReceived(), recordsWritten(), recordsQuarantined(), isPaused());
  }

  /** Whether this runtime has Flight Recorder (a jlink'ed runtime may leave out jdk.jfr). */
  private static boolean jfrAvailable() {
    boolean present = ModuleLayer.boot().findModule("jdk.jfr").isPresent();
    if (!present) {
      log.info("NCCL Inspector: this Java runtime has no jdk.jfr module; JFR events are off");
    }
    return present;
  }

  private static InspectorSnapshot emptySnapshot() {
    return new InspectorSnapshot(Instant.now(), List.of(), EventCounters.empty(), 0, 0, 0, false);
  }

  /** Writes a snapshot as JSON to a file (replacing it). */
  public void exportSnapshot(Path file) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
      snapshot().writeJson(out);
    }
  }

  /** Writes a snapshot as JSON to a stream (which stays open). */
  public void exportSnapshot(OutputStream out) throws IOException {
    snapshot().writeJson(out);
  }

  /**
   * Writes the records of the selected communicators, from now until the returned registration
   * is closed, to a JSON Lines file in the output format, on a thread of its own. Closing the
   * registration writes what is queued and closes the file.
   */
  public ListenerRegistration exportRecords(Path file, CommunicatorSelector selector) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    return exportRecords(new BufferedOutputStream(Files.newOutputStream(file)), selector);
  }

  /** As {@link #exportRecords(Path, CommunicatorSelector)}, to a stream, closed with the export. */
  public ListenerRegistration exportRecords(OutputStream out, CommunicatorSelector selector) throws IOException {
    if (!isActive()) {
      out.close();
      return InactiveRegistration.INSTANCE;
    }
    JsonLinesWriter writer = new JsonLinesWriter(out, config.processIdentity(), gitRevision(), config.verbose());
    return parts.listeners().add(selector, new RecordExport(writer), false, true, config.listenerQueueCapacity());
  }

  /** Writes records as JSON Lines on its listener thread. */
  private record RecordExport(JsonLinesWriter writer) implements InspectorListener, Flushable, Closeable {
    @Override
    public void operationCompleted(OperationRecord record) {
      try {
        writer.write(record, ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void flush() throws IOException {
      writer.flush();
    }

    @Override
    public void close() throws IOException {
      writer.close();
    }
  }

  // ---- output and counters ----

  /** The shared object NCCL is pointed at (empty when disabled). */
  public Optional<Path> libraryPath() {
    return Optional.ofNullable(core).map(NativeCore::libraryPath);
  }

  /**
   * The JSON Lines file (empty when JSON output is off or the inspector is disabled). It is
   * created at the first record; until then this is the name it will get.
   */
  public Optional<Path> outputFile() {
    return Optional.ofNullable(parts).map(Parts::jsonSink).map(JsonFileSink::file);
  }

  /**
   * Why JSON output cannot be written, if it cannot (an unwritable dump directory, a full disk);
   * after close, the first reason it ever could not.
   */
  public Optional<String> outputError() {
    if (parts == null || parts.jsonSink() == null) {
      return Optional.empty();
    }
    return closed ? parts.jsonSink().firstError() : parts.jsonSink().error();
  }

  /**
   * Where the inspector stands: active or not, whether NCCL ever reached it, and whether what it
   * received was written (see {@link InspectorStatus#problems()}).
   */
  public InspectorStatus status() {
    InspectorStatus.State state = core == null ? InspectorStatus.State.DISABLED
        : closed ? InspectorStatus.State.CLOSED : InspectorStatus.State.ACTIVE;
    if (parts == null) {
      return new InspectorStatus(state, 0, 0, 0, 0, 0, Optional.empty(), Optional.empty(), 0, 0, List.of());
    }
    JsonFileSink json = parts.jsonSink();
    long seen = parts.communicators().seen();
    long notWritten = json == null ? 0 : json.linesNotWritten();
    Optional<String> error = json == null ? Optional.empty() : json.firstError();
    long traceLost = parts.recording() == null ? 0 : parts.recording().eventsNotWritten();
    long abandoned = parts.listeners().abandoned();
    List<String> problems = new ArrayList<>();
    if (seen == 0) {
      problems.add(NO_COMMUNICATOR);
    }
    if (notWritten > 0) {
      problems.add(notWritten + " record(s) could not be written to " + json.file() + ": " + error.orElse("?"));
    } else if (error.isPresent() && closed) {
      problems.add("output " + json.file() + " could not be written for a while (" + error.get() + "); nothing was lost");
    }
    if (traceLost > 0) {
      problems.add(traceLost + " recorded callback(s) could not be written to " + parts.recording().file() + ": "
          + parts.recording().outputError().orElse("?"));
    }
    if (abandoned > 0) {
      problems.add(abandoned + " listener(s) did not finish in time and were abandoned");
    }
    return new InspectorStatus(state, seen, recordsReceived(), recordsWritten(), recordsQuarantined(), notWritten,
        json == null ? Optional.empty() : json.createdFile(), error, traceLost, abandoned, problems);
  }

  private static final String NO_COMMUNICATOR = "no NCCL communicator reached the inspector: NCCL did not load it"
      + " (the first communicator was created before enable(), NCCL_PROFILER_PLUGIN was changed, or NCCL is not used"
      + " in this process)";

  /** Records written to the JSON file so far. */
  public long recordsWritten() {
    return parts == null || parts.jsonSink() == null ? 0 : parts.jsonSink().linesWritten();
  }

  /**
   * The Prometheus textfiles written so far and still there (empty when that output is off). A
   * GPU's file appears at the first write after it saw operations.
   */
  public Set<Path> prometheusFiles() {
    return parts == null || parts.prometheus() == null ? Set.of() : parts.prometheus().files();
  }

  /** Records written to the quarantine file so far (GPU timestamps unusable). */
  public long recordsQuarantined() {
    return parts == null || parts.jsonSink() == null ? 0 : parts.jsonSink().linesQuarantined();
  }

  /** The quarantine file beside the output file (it exists once a record was quarantined). */
  public Optional<Path> quarantineFile() {
    return Optional.ofNullable(parts).map(Parts::jsonSink).map(JsonFileSink::quarantineFile);
  }

  /** The raw event recording file, if recording is on and could start. */
  public Optional<Path> traceFile() {
    return Optional.ofNullable(parts).map(Parts::recording).map(TraceRecording::file);
  }

  /** Callbacks written to the raw event recording so far. */
  public long traceEventsWritten() {
    return parts == null || parts.recording() == null ? 0 : parts.recording().eventsWritten();
  }

  /** Callbacks not written because the recording reached its size bound. */
  public long traceEventsDroppedAtLimit() {
    return parts == null || parts.recording() == null ? 0 : parts.recording().eventsDroppedAtLimit();
  }

  /** Callbacks lost because the recording file could not be written (a full disk), not the bound. */
  public long traceEventsNotWritten() {
    return parts == null || parts.recording() == null ? 0 : parts.recording().eventsNotWritten();
  }

  /** Why the recording file could not be written, if it ever could not. */
  public Optional<String> traceError() {
    return parts == null || parts.recording() == null ? Optional.empty() : parts.recording().outputError();
  }

  /** Records the dump thread has received from the native core so far. */
  public long recordsReceived() {
    return parts == null ? 0 : parts.dumpThread().recordsDelivered();
  }

  /**
   * Drop, note and quarantine counters since this inspector was enabled: the native core's, and
   * the JVM side's own ({@code json_backlog_full}, {@code analysis_backlog_full}: records a writer
   * thread could not take; {@code json_not_written}: records lost to an output error).
   */
  public EventCounters counters() {
    if (core == null) {
      return EventCounters.empty();
    }
    EventCounters n = core.counters();
    Map<String, Long> drops = new LinkedHashMap<>(n.drops());
    drops.put("json_backlog_full", parts.jsonWriter() == null ? 0 : parts.jsonWriter().dropped());
    drops.put("json_not_written", parts.jsonSink() == null ? 0 : parts.jsonSink().linesNotWritten());
    drops.put("analysis_backlog_full", parts.analysis().dropped());
    drops.put("listener_abandoned", parts.listeners().abandoned());
    if (parts.recording() != null) {
      drops.put("trace_not_written", parts.recording().eventsNotWritten());
    }
    if (parts.prometheus() != null) {
      drops.put("prometheus_backlog_full", parts.prometheusWriter().dropped());
      drops.put("prometheus_series_overflow", parts.prometheus().seriesOverflow());
    }
    return new EventCounters(drops, n.notes(), n.quarantined());
  }

  /** Communicators currently live (as far as the dump thread has seen). */
  public Collection<CommunicatorInfo> communicators() {
    return parts == null ? List.of() : parts.communicators().live();
  }

  /**
   * Asks the dump thread to drain and flush the output soon: the JSON file is flushed and the
   * Prometheus textfiles are rewritten, whatever their interval.
   */
  public void flush() {
    if (parts != null && !closed) {
      parts.dumpThread().requestFlush();
    }
  }

  /**
   * Stops profiling: operations still in flight are closed (with the timing they have), every
   * completed record is written and delivered to listeners, the output is closed and native
   * memory is released (or, if NCCL communicators are still alive, released when the last of them
   * is destroyed).
   */
  @Override
  public void close() {
    closeInternal(false);
  }

  private void closeAtShutdown() {
    closeInternal(true);
  }

  private void closeInternal(boolean atShutdown) {
    synchronized (LOCK) {
      if (closed || core == null) {
        closed = true;
        return;
      }
      closed = true;
      parts.listeners().closingFrom(Thread.currentThread());
      if (parts.watchdog() != null) {
        parts.watchdog().close();
      }
      core.close();
      try {
        if (!parts.dumpThread().finish(CLOSE_TIMEOUT)) {
          log.error("NCCL Inspector: the dump thread did not finish within {}", CLOSE_TIMEOUT);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        log.warn("NCCL Inspector: interrupted while writing the last records");
      }
      core.release();
      if (parts.jfr() != null) {
        parts.jfr().close();
      }
      if (!atShutdown) {
        try {
          Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
          // the JVM is already shutting down; the hook will find the inspector closed
        }
      }
      if (active == this) {
        active = null;
      }
      InspectorStatus status = status();
      if (status.communicatorsSeen() == 0) {
        log.warn("NCCL Inspector closed: {}; nothing was written", NO_COMMUNICATOR);
      } else if (status.outputLost()) {
        log.error("NCCL Inspector closed: {} records written, output lost: {}", recordsWritten(),
            String.join("; ", status.problems()));
      } else {
        log.info("NCCL Inspector closed: {} records written{}", recordsWritten(),
            status.outputFile().map(p -> " to " + p).orElse(""));
      }
    }
  }

  private static String gitRevision() {
    String v = NcclInspector.class.getPackage().getImplementationVersion();
    return "nccl-inspector-jvm-" + (v != null ? v : "dev");
  }

  /** The registration of an inactive inspector: nothing to deliver. */
  private enum InactiveRegistration implements ListenerRegistration {
    INSTANCE;

    @Override
    public long dropped() {
      return 0;
    }

    @Override
    public long delivered() {
      return 0;
    }

    @Override
    public void close() {}
  }
}
