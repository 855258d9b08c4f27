package io.ncclinspector;

import io.ncclinspector.internal.AnalysisSink;
import io.ncclinspector.internal.AsyncSink;
import io.ncclinspector.internal.CommunicatorRegistry;
import io.ncclinspector.internal.DumpThread;
import io.ncclinspector.internal.EventSink;
import io.ncclinspector.internal.ExporterSet;
import io.ncclinspector.internal.HangWatchdog;
import io.ncclinspector.internal.JsonFileSink;
import io.ncclinspector.internal.JsonLinesWriter;
import io.ncclinspector.internal.ListenerDispatcher;
import io.ncclinspector.internal.NativeCore;
import io.ncclinspector.internal.NcclReleaseMonitor;
import io.ncclinspector.internal.NcclWorkarounds;
import io.ncclinspector.internal.PluginEnvironment;
import io.ncclinspector.internal.RecordDecoder;
import io.ncclinspector.internal.SlowCollectiveDetector;
import io.ncclinspector.internal.SlowCollectiveRateLimiter;
import io.ncclinspector.internal.Ticker;
import io.ncclinspector.internal.output.OutputFileSystem;
import io.ncclinspector.internal.StatisticsStore;
import io.ncclinspector.internal.ThreadTags;
import io.ncclinspector.internal.TraceRecording;
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
  /** Guards enabling and closing: one active inspector per process. */
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
      ExporterSet exporters,
      DumpThread dumpThread,
      HangWatchdog watchdog,
      TraceRecording recording,
      NcclReleaseMonitor nccl) {}

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
    return enable(config, Ticker.SYSTEM);
  }

  /**
   * As {@link #enable(InspectorConfig)}, with the clock of the inspector's timers: the hang
   * watchdog's rounds, the output's retry interval, the slow-collective rate limit. Tests pass
   * one they drive by hand.
   */
  static NcclInspector enable(InspectorConfig config, Ticker ticker) {
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
      List<InspectorStatus.Workaround> workarounds =
          NcclWorkarounds.apply(core, config.ncclWorkarounds(), core.ncclAlreadyLoaded());
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
      AtomicReference<ExporterSet.Inspector> self = new AtomicReference<>();
      NcclInspector inspector = new NcclInspector(config, core, start(config, core, self, ticker, workarounds));
      self.set(inspector.new ForExporters());
      Runtime.getRuntime().addShutdownHook(inspector.shutdownHook);
      active = inspector;
      log.info("NCCL Inspector enabled: {}={}{}{}", PluginEnvironment.PLUGIN_VARIABLE, core.libraryPath(),
          inspector.parts.jsonSink() == null ? "" : ", output " + inspector.parts.jsonSink().file(),
          inspector.parts.exporters().names().isEmpty() ? "" : ", exporters " + inspector.parts.exporters().names());
      return inspector;
    }
  }

  private static Parts start(InspectorConfig config, NativeCore core, AtomicReference<ExporterSet.Inspector> self,
      Ticker ticker, List<InspectorStatus.Workaround> workarounds) {
    CommunicatorRegistry communicators = new CommunicatorRegistry();
    List<EventSink> sinks = new ArrayList<>();
    NcclReleaseMonitor nccl = new NcclReleaseMonitor(workarounds);
    sinks.add(nccl); /* on the dump thread itself: a few field tests per record */
    JsonFileSink json = null;
    AsyncSink jsonWriter = null;
    if (config.jsonOutput()) {
      json = JsonFileSink.open(config, gitRevision(), OutputFileSystem.local(), ticker);
      jsonWriter = new AsyncSink(json, "nccl-inspector-json-writer", BACKLOG);
      sinks.add(jsonWriter);
    }
    ExporterSet exporters = ExporterSet.start(config, self::get, BACKLOG);
    ListenerDispatcher listeners = new ListenerDispatcher(config.listenerCloseTimeout());
    StatisticsStore statistics = new StatisticsStore(config.lastRecordsPerCommunicator());
    SlowCollectiveDetection slow = config.slowCollectives();
    AsyncSink analysis = new AsyncSink(new AnalysisSink(statistics, new SlowCollectiveDetector(slow),
        new SlowCollectiveRateLimiter(slow.maxEventsPerInterval(), slow.interval()), listeners, exporters,
        ticker::nanoTime), "nccl-inspector-analysis", BACKLOG);
    sinks.add(analysis);
    sinks.add(exporters); /* after the analysis, which reports slow collectives to them until it closes */
    sinks.add(listeners); /* last, for the same reason */
    TraceRecording recording = config.recording()
        ? TraceRecording.start(config.traceDirectory().orElseThrow(), config.processIdentity().pid(),
            config.traceMaxBytes(), config.traceRingCells())
        : null;
    DumpThread thread = new DumpThread(core, new RecordDecoder(core, communicators), sinks,
        config.dumpInterval(), recording);
    thread.start();
    HangWatchdog watchdog = config.hangTimeout().isZero() ? null
        : new HangWatchdog(core, communicators, listeners, exporters, config.hangTimeout(), ticker);
    return new Parts(communicators, json, jsonWriter, statistics, analysis, listeners, exporters, thread, watchdog,
        recording, nccl);
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
    InspectorStatus status = status();
    return new InspectorSnapshot(Instant.now().truncatedTo(ChronoUnit.MICROS), parts.statistics().snapshot(),
        counters(), status.records().received(), status.records().written(), status.records().quarantined(),
        status.paused());
  }

  private static InspectorSnapshot emptySnapshot() {
    return new InspectorSnapshot(Instant.now(), List.of(), EventCounters.empty(), 0, 0, 0, false);
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

  // ---- status and counters ----

  /**
   * Where the inspector stands: active or not, whether NCCL ever reached it, what it received and
   * wrote, where its files are, and whether anything was lost (see {@link InspectorStatus#problems()}).
   */
  public InspectorStatus status() {
    InspectorStatus.State state = core == null ? InspectorStatus.State.DISABLED
        : closed ? InspectorStatus.State.CLOSED : InspectorStatus.State.ACTIVE;
    if (parts == null) {
      return new InspectorStatus(state, Optional.empty(), false, 0, InspectorStatus.Records.NONE, Optional.empty(),
          Optional.empty(), 0, InspectorStatus.Nccl.NONE, List.of());
    }
    JsonFileSink json = parts.jsonSink();
    long seen = parts.communicators().seen();
    long notWritten = json == null ? 0 : json.linesNotWritten();
    Optional<String> firstError = json == null ? Optional.empty() : json.firstError();
    TraceRecording recording = parts.recording();
    long traceLost = recording == null ? 0 : recording.eventsNotWritten();
    long abandoned = parts.listeners().abandoned();
    List<String> problems = new ArrayList<>();
    if (seen == 0) {
      problems.add(NO_COMMUNICATOR);
    }
    if (notWritten > 0) {
      problems.add(notWritten + " record(s) could not be written to " + json.file() + ": " + firstError.orElse("?"));
    } else if (firstError.isPresent() && closed) {
      problems.add("output " + json.file() + " could not be written for a while (" + firstError.get()
          + "); nothing was lost");
    }
    if (traceLost > 0) {
      problems.add(traceLost + " recorded callback(s) could not be written to " + recording.file() + ": "
          + recording.outputError().orElse("?"));
    }
    if (abandoned > 0) {
      problems.add(abandoned + " listener(s) did not finish in time and were abandoned");
    }
    problems.addAll(parts.nccl().problems());
    InspectorStatus.Records records = new InspectorStatus.Records(parts.dumpThread().recordsDelivered(),
        json == null ? 0 : json.linesWritten(), json == null ? 0 : json.linesQuarantined(), notWritten);
    Optional<InspectorStatus.Output> output = json == null ? Optional.empty()
        : Optional.of(new InspectorStatus.Output(json.file(), json.createdFile().isPresent(), json.quarantineFile(),
            closed ? json.firstError() : json.error()));
    Optional<InspectorStatus.Recording> rec = recording == null ? Optional.empty()
        : Optional.of(new InspectorStatus.Recording(recording.file(), recording.eventsWritten(),
            recording.eventsDroppedAtLimit(), traceLost, recording.outputError()));
    return new InspectorStatus(state, Optional.of(core.libraryPath()), isActive() && core.state() == NativeCore.STATE_PAUSED,
        seen, records, output, rec, abandoned, parts.nccl().status(), problems);
  }

  private static final String NO_COMMUNICATOR = "no NCCL communicator reached the inspector: NCCL did not load it"
      + " (the first communicator was created before enable(), NCCL_PROFILER_PLUGIN was changed, or NCCL is not used"
      + " in this process)";

  /**
   * The started exporter of a type ({@code PrometheusTextfileExporter}, ...), to ask it what only it
   * knows; empty if the configuration started none of that type or the inspector is disabled.
   */
  public <T> Optional<T> exporter(Class<T> type) {
    return parts == null ? Optional.empty() : parts.exporters().find(type);
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
    drops.put(EventCounters.JSON_BACKLOG_FULL, parts.jsonWriter() == null ? 0 : parts.jsonWriter().dropped());
    drops.put(EventCounters.JSON_NOT_WRITTEN, parts.jsonSink() == null ? 0 : parts.jsonSink().linesNotWritten());
    drops.put(EventCounters.ANALYSIS_BACKLOG_FULL, parts.analysis().dropped());
    drops.put(EventCounters.LISTENER_ABANDONED, parts.listeners().abandoned());
    if (parts.recording() != null) {
      drops.put(EventCounters.TRACE_NOT_WRITTEN, parts.recording().eventsNotWritten());
    }
    drops.putAll(parts.exporters().dropCounters());
    return new EventCounters(drops, n.notes(), n.quarantined());
  }

  /** Communicators currently live (as far as the dump thread has seen). */
  public Collection<CommunicatorInfo> communicators() {
    return parts == null ? List.of() : parts.communicators().live();
  }

  /**
   * Asks the dump thread to drain and flush the output soon: the JSON file is flushed and the
   * exporters are told to write now ({@link io.ncclinspector.spi.InspectorExporter#flushNow()}),
   * whatever their interval.
   */
  public void flush() {
    if (parts != null && !closed) {
      parts.dumpThread().requestFlush();
    }
  }

  /**
   * Requested flushes ({@link #flush}) carried out all the way: by the dump thread and by the
   * JSON writer's thread. Tests wait on it rather than for a while.
   */
  long flushesMade() {
    if (parts == null) {
      return 0;
    }
    long dump = parts.dumpThread().requestedFlushesMade();
    return parts.jsonWriter() == null ? dump : Math.min(dump, parts.jsonWriter().flushesMade());
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
        log.error("NCCL Inspector closed: {} records written, output lost: {}", status.records().written(),
            String.join("; ", status.problems()));
      } else {
        log.info("NCCL Inspector closed: {} records written{}", status.records().written(),
            status.outputFile().map(p -> " to " + p).orElse(""));
      }
    }
  }

  /** The inspector as its exporters' context sees it. */
  private final class ForExporters implements ExporterSet.Inspector {
    @Override
    public EventCounters counters() {
      return NcclInspector.this.counters();
    }

    @Override
    public InspectorStatus status() {
      return NcclInspector.this.status();
    }

    @Override
    public InspectorSnapshot snapshot() {
      return NcclInspector.this.snapshot();
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
