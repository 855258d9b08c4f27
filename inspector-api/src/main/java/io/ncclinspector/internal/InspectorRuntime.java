package io.ncclinspector.internal;

import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.CommunicatorSelector;
import io.ncclinspector.EventCounters;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.InspectorSnapshot;
import io.ncclinspector.InspectorStatus;
import io.ncclinspector.ListenerRegistration;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.SlowCollectiveDetection;
import io.ncclinspector.internal.output.OutputFileSystem;
import java.io.Closeable;
import java.io.Flushable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an enabled inspector runs, and its lifecycle: the native core switched on for this session,
 * the dump thread and the sinks it feeds (JSON writer, analysis, exporters, listeners), the hang
 * watchdog and the raw recording. It builds the status, the counters and the snapshots from its
 * parts, and closes them in order. {@link io.ncclinspector.NcclInspector} keeps the public API and
 * the one-active-inspector rule, and owns one of these while it is enabled.
 */
public final class InspectorRuntime {
  private static final Logger log = LoggerFactory.getLogger(InspectorRuntime.class);
  /**
   * Records the JSON writer and the analysis may each fall behind the dump thread by (absorbing
   * disk stalls and bursts) before records are dropped and counted.
   */
  private static final int BACKLOG = 1 << 18;

  private static final String NO_COMMUNICATOR = "no NCCL communicator reached the inspector: NCCL did not load it"
      + " (the first communicator was created before enable(), NCCL_PROFILER_PLUGIN was changed, or NCCL is not used"
      + " in this process)";

  private final InspectorConfig config;
  private final NativeCore core;
  private final CommunicatorRegistry communicators;
  private final JsonFileSink jsonSink;
  private final AsyncSink jsonWriter;
  private final StatisticsStore statistics;
  private final AsyncSink analysis;
  private final ListenerDispatcher listeners;
  private final ExporterSet exporters;
  private final DumpThread dumpThread;
  private final HangWatchdog watchdog;
  private final TraceRecording recording;
  private final NcclReleaseMonitor nccl;
  /** Why CUPTI kernel records were asked for and not had, or null. */
  private final String kernelRecordsProblem;
  /** Whether the deferred mode was asked for and did not start. */
  private final boolean deferredRefused;

  /** The status's problem when the deferred mode (on unless set to 0) did not start. */
  public static final String DEFERRED_NOT_STARTED = "the deferred mode (NCCL_INSPECTOR_DEFERRED) did not start"
      + " (communicators of an earlier session are still alive, or its memory or thread could not be had):"
      + " the callbacks do the core's work on NCCL's threads";

  private InspectorRuntime(InspectorConfig config, NativeCore core, CommunicatorRegistry communicators,
      JsonFileSink jsonSink, AsyncSink jsonWriter, StatisticsStore statistics, AsyncSink analysis,
      ListenerDispatcher listeners, ExporterSet exporters, DumpThread dumpThread, HangWatchdog watchdog,
      TraceRecording recording, NcclReleaseMonitor nccl, String kernelRecordsProblem, boolean deferredRefused) {
    this.config = config;
    this.core = core;
    this.communicators = communicators;
    this.jsonSink = jsonSink;
    this.jsonWriter = jsonWriter;
    this.statistics = statistics;
    this.analysis = analysis;
    this.listeners = listeners;
    this.exporters = exporters;
    this.dumpThread = dumpThread;
    this.watchdog = watchdog;
    this.recording = recording;
    this.nccl = nccl;
    this.kernelRecordsProblem = kernelRecordsProblem;
    this.deferredRefused = deferredRefused;
  }

  /**
   * Claims NCCL's profiler slot for the native core, switches the core on with the configuration's
   * sizes and starts the threads. The caller holds the one-active-inspector lock.
   *
   * @param inspector the inspector as exporters see it, once it exists (exporters start first)
   * @throws IllegalStateException if the plugin variable names another plugin, or the core refuses
   */
  public static InspectorRuntime start(InspectorConfig config, Ticker ticker, Supplier<ExporterSet.Inspector> inspector) {
    NativeCore core = NativeCore.get();
    PluginEnvironment.claim(core, core.libraryPath(), config.overridePlugin());
    List<InspectorStatus.Workaround> workarounds =
        NcclWorkarounds.apply(core, config.ncclWorkarounds(), core.ncclAlreadyLoaded());
    core.setNetworkBreakdown(config.networkBreakdown());
    core.setChannelRecovery(config.channelRecovery());
    core.setTscClock(config.tscClock());
    core.setDeferred(config.deferred());
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
    boolean deferredRefused = config.deferred() && !core.deferredActive();
    if (deferredRefused) {
      log.warn("NCCL Inspector: {}", DEFERRED_NOT_STARTED);
    }
    log.debug("NCCL Inspector: CPU times from {}", core.tscClockActive() ? "the time-stamp counter"
        : "clock_gettime" + (config.tscClock() ? " (the kernel's clock is not the time-stamp counter)" : ""));
    /* Until it returns, a failure undoes what was started, so that enable() can be called again:
       without this an exporter that failed to start left the core on (every later enable() refused)
       and the JSON threads behind. */
    JsonFileSink json = null;
    AsyncSink jsonWriter = null;
    ExporterSet exporters = null;
    AsyncSink analysis = null;
    try {
      CommunicatorRegistry communicators = new CommunicatorRegistry();
      List<EventSink> sinks = new ArrayList<>();
      NcclReleaseMonitor nccl = new NcclReleaseMonitor(workarounds);
      sinks.add(nccl); /* on the dump thread itself: a few field tests per record */
      if (config.jsonOutput()) {
        json = JsonFileSink.open(config, gitRevision(),
            config.directIo() ? OutputFileSystem.localDirect() : OutputFileSystem.local(), ticker);
        jsonWriter = new AsyncSink(json, "nccl-inspector-json-writer", BACKLOG);
        sinks.add(jsonWriter);
      }
      exporters = ExporterSet.start(config, inspector, BACKLOG);
      ListenerDispatcher listeners = new ListenerDispatcher(config.listenerCloseTimeout());
      StatisticsStore statistics = new StatisticsStore(config.lastRecordsPerCommunicator());
      SlowCollectiveDetection slow = config.slowCollectives();
      analysis = new AsyncSink(new AnalysisSink(statistics, new SlowCollectiveDetector(slow),
          new SlowCollectiveRateLimiter(slow.maxEventsPerInterval(), slow.interval()), listeners, exporters,
          ticker::nanoTime), "nccl-inspector-analysis", BACKLOG);
      sinks.add(analysis);
      sinks.add(exporters); /* after the analysis, which reports slow collectives to them until it closes */
      sinks.add(listeners); /* last, for the same reason */
      TraceRecording recording = config.recording()
          ? TraceRecording.start(config.traceDirectory().orElseThrow(), config.processIdentity().pid(),
              config.traceMaxBytes(), config.traceRingCells())
          : null;
      RecordDecoder decoder = new RecordDecoder(core, communicators);
      KernelTimeJoiner joiner = startKernelRecords(config, core, decoder);
      DumpThread thread = new DumpThread(core, decoder, sinks, config.dumpInterval(), recording, joiner,
          config.kernelRecords());
      thread.start();
      HangWatchdog watchdog = config.hangTimeout().isZero() ? null
          : new HangWatchdog(core, communicators, listeners, exporters, config.hangTimeout(), ticker);
      return new InspectorRuntime(config, core, communicators, json, jsonWriter, statistics, analysis, listeners,
          exporters, thread, watchdog, recording, nccl,
          config.kernelRecords() && joiner == null
              ? "CUPTI kernel records were asked for but are not available: " + core.kernelRecordsReason() : null,
          deferredRefused);
    } catch (RuntimeException | Error e) {
      if (analysis != null) {
        analysis.discard();
      }
      if (exporters != null) {
        exporters.close();
      }
      if (jsonWriter != null) {
        jsonWriter.discard(); /* closes the sink, which ends its appending thread */
      } else if (json != null) {
        json.close();
      }
      core.close();
      core.release();
      throw e;
    }
  }

  /* Kernel records: a held record waits at most this long for its kernel's CUPTI record (CUPTI's
   * buffers are flushed every DumpThread.KERNEL_FLUSH_INTERVAL), and at most this many are held. */
  private static final long KERNEL_RECORD_WAIT_NANOS = Duration.ofSeconds(2).toNanos();
  private static final int KERNEL_RECORDS_HELD_MAX = 65_536;

  /** Starts CUPTI kernel records where the configuration asks for them; null when off or refused. */
  private static KernelTimeJoiner startKernelRecords(InspectorConfig config, NativeCore core, RecordDecoder decoder) {
    if (!config.kernelRecords()) {
      return null;
    }
    int state = core.startKernelRecords(config.cuptiLibrary(), config.cuptiShared());
    if (state != NativeCore.KERNEL_RECORDS_ACTIVE) {
      log.warn("NCCL Inspector: CUPTI kernel records asked for but not available ({}); operations NCCL's"
          + " channels cannot time stay untimed", core.kernelRecordsReason());
      return null;
    }
    log.info("NCCL Inspector: CUPTI kernel records on: kernels time the operations NCCL's channels cannot");
    return new KernelTimeJoiner(decoder, KERNEL_RECORD_WAIT_NANOS, KERNEL_RECORDS_HELD_MAX, KERNEL_RECORDS_HELD_MAX,
        config.requireKernelTiming());
  }

  /** One line for the log: where NCCL is pointed, where the output goes, which exporters run. */
  public String describe() {
    return PluginEnvironment.PLUGIN_VARIABLE + "=" + core.libraryPath()
        + (jsonSink == null ? "" : ", output " + jsonSink.file())
        + (exporters.names().isEmpty() ? "" : ", exporters " + exporters.names());
  }

  // ---- control ----

  public void setPaused(boolean paused) {
    core.setPaused(paused);
  }

  public void setMinMessageBytes(long bytes) {
    core.setMinMessageBytes(bytes);
  }

  public ListenerRegistration addListener(CommunicatorSelector selector, InspectorListener listener,
      int queueCapacity) {
    return listeners.add(selector, listener, true, false, queueCapacity);
  }

  /** Writes the selected communicators' records as JSON Lines to {@code out} until closed. */
  public ListenerRegistration exportRecords(OutputStream out, CommunicatorSelector selector) throws IOException {
    JsonLinesWriter writer = new JsonLinesWriter(out, config.processIdentity(), gitRevision(), config.verbose());
    return listeners.add(selector, new RecordExport(writer), false, true, config.listenerQueueCapacity());
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

  /** Asks the dump thread to drain and flush the output soon. */
  public void requestFlush() {
    dumpThread.requestFlush();
  }

  /** Requested flushes carried out all the way: by the dump thread and by the JSON writer's thread. */
  public long flushesMade() {
    long dump = dumpThread.requestedFlushesMade();
    return jsonWriter == null ? dump : Math.min(dump, jsonWriter.flushesMade());
  }

  // ---- what it knows ----

  public <T> Optional<T> exporter(Class<T> type) {
    return exporters.find(type);
  }

  public Collection<CommunicatorInfo> communicators() {
    return communicators.live();
  }

  /** The snapshot of the statistics with the status it was taken at. */
  public InspectorSnapshot snapshot(InspectorStatus status) {
    return new InspectorSnapshot(Instant.now().truncatedTo(ChronoUnit.MICROS), statistics.snapshot(),
        counters(), status.records().received(), status.records().written(), status.records().quarantined(),
        status.paused());
  }

  /**
   * The native core's counters and the JVM side's own ({@code json_backlog_full},
   * {@code analysis_backlog_full}, {@code json_not_written}, ...).
   */
  public EventCounters counters() {
    EventCounters n = core.counters();
    Map<String, Long> drops = new LinkedHashMap<>(n.drops());
    KernelTimeJoiner joiner = dumpThread.kernelTimeJoiner();
    if (joiner != null) { /* records the core passed for their kernel, which did not time them */
      drops.merge(EventCounters.NO_GPU_TIMING, joiner.droppedUntimed(), Long::sum);
    }
    drops.put(EventCounters.JSON_BACKLOG_FULL, jsonWriter == null ? 0 : jsonWriter.dropped());
    drops.put(EventCounters.JSON_NOT_WRITTEN, jsonSink == null ? 0 : jsonSink.linesNotWritten());
    drops.put(EventCounters.ANALYSIS_BACKLOG_FULL, analysis.dropped());
    drops.put(EventCounters.LISTENER_ABANDONED, listeners.abandoned());
    if (recording != null) {
      drops.put(EventCounters.TRACE_NOT_WRITTEN, recording.eventsNotWritten());
    }
    drops.putAll(exporters.dropCounters());
    Map<String, Long> notes = new LinkedHashMap<>(n.notes());
    notes.put(EventCounters.PHASE_OTHER, PhaseNames.folded());
    return new EventCounters(drops, notes, n.quarantined());
  }

  /** The status in the given state ({@code closed}: after {@link #close}). */
  public InspectorStatus status(boolean closed) {
    InspectorStatus.State state = closed ? InspectorStatus.State.CLOSED : InspectorStatus.State.ACTIVE;
    long seen = communicators.seen();
    long notWritten = jsonSink == null ? 0 : jsonSink.linesNotWritten();
    Optional<String> firstError = jsonSink == null ? Optional.empty() : jsonSink.firstError();
    long traceLost = recording == null ? 0 : recording.eventsNotWritten();
    long abandoned = listeners.abandoned();
    List<String> problems = new ArrayList<>();
    if (seen == 0) {
      problems.add(NO_COMMUNICATOR);
    }
    if (notWritten > 0) {
      problems.add(notWritten + " record(s) could not be written to " + jsonSink.file() + ": " + firstError.orElse("?"));
    } else if (firstError.isPresent() && closed) {
      problems.add("output " + jsonSink.file() + " could not be written for a while (" + firstError.get()
          + "); nothing was lost");
    }
    if (traceLost > 0) {
      problems.add(traceLost + " recorded callback(s) could not be written to " + recording.file() + ": "
          + recording.outputError().orElse("?"));
    }
    if (abandoned > 0) {
      problems.add(abandoned + " listener(s) did not finish in time and were abandoned");
    }
    problems.addAll(nccl.problems());
    if (kernelRecordsProblem != null) {
      problems.add(kernelRecordsProblem);
    }
    if (deferredRefused) {
      problems.add(DEFERRED_NOT_STARTED);
    }
    KernelTimeJoiner joiner = dumpThread.kernelTimeJoiner();
    String silence = joiner == null ? null : joiner.silence();
    if (silence != null) {
      problems.add(silence);
    }
    InspectorStatus.Records records = new InspectorStatus.Records(dumpThread.recordsDelivered(),
        jsonSink == null ? 0 : jsonSink.linesWritten(), jsonSink == null ? 0 : jsonSink.linesQuarantined(), notWritten);
    Optional<InspectorStatus.Output> output = jsonSink == null ? Optional.empty()
        : Optional.of(new InspectorStatus.Output(jsonSink.file(), jsonSink.createdFile().isPresent(),
            jsonSink.quarantineFile(), closed ? jsonSink.firstError() : jsonSink.error()));
    Optional<InspectorStatus.Recording> rec = recording == null ? Optional.empty()
        : Optional.of(new InspectorStatus.Recording(recording.file(), recording.eventsWritten(),
            recording.eventsDroppedAtLimit(), traceLost, recording.outputError()));
    return new InspectorStatus(state, Optional.of(core.libraryPath()),
        !closed && core.state() == NativeCore.STATE_PAUSED, seen, records, output, rec, abandoned, nccl.status(),
        problems, kernelRecordsStatus());
  }

  private Optional<InspectorStatus.KernelRecords> kernelRecordsStatus() {
    if (!config.kernelRecords()) {
      return Optional.empty();
    }
    KernelTimeJoiner joiner = dumpThread.kernelTimeJoiner();
    if (joiner == null) {
      return Optional.of(new InspectorStatus.KernelRecords(false, core.kernelRecordsReason(), 0, 0, 0, 0, 0, 0, 0, 0, 0));
    }
    KernelTimeJoiner.Counts c = joiner.counts();
    KernelTimeJoiner.CrossCheck x = joiner.crossCheck();
    return Optional.of(new InspectorStatus.KernelRecords(core.kernelRecordsState() == NativeCore.KERNEL_RECORDS_ACTIVE,
        core.kernelRecordsReason(), c.timed(), c.groupTimed(), c.shared(), c.missing(), x.compared(), x.minNanos(),
        x.maxNanos(), x.meanNanos(), x.disagreeing()));
  }

  // ---- closing ----

  /**
   * Closes in order: listeners told who closes (so a listener closing the inspector does not wait
   * for itself), the watchdog stopped, the native core told to flush what is in flight, the dump
   * thread drained to the end (every sink closed behind it), native memory released.
   *
   * @param closingThread the thread that closes (a listener's own thread is not waited for)
   */
  public void close(Thread closingThread, Duration timeout) {
    listeners.closingFrom(closingThread);
    if (watchdog != null) {
      watchdog.close();
    }
    core.close();
    try {
      if (!dumpThread.finish(timeout)) {
        log.error("NCCL Inspector: the dump thread did not finish within {}", timeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.warn("NCCL Inspector: interrupted while writing the last records");
    }
    core.release();
  }

  /** The closing log line's verdict, from the final status. */
  public static void logClosed(InspectorStatus status) {
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

  private static String gitRevision() {
    String v = InspectorRuntime.class.getPackage().getImplementationVersion();
    return "nccl-inspector-jvm-" + (v != null ? v : "dev");
  }
}
