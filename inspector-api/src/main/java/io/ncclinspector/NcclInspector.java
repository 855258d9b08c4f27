package io.ncclinspector;

import io.ncclinspector.internal.AsyncSink;
import io.ncclinspector.internal.CommunicatorRegistry;
import io.ncclinspector.internal.DumpThread;
import io.ncclinspector.internal.JsonFileSink;
import io.ncclinspector.internal.NativeCore;
import io.ncclinspector.internal.PluginEnvironment;
import io.ncclinspector.internal.RecordDecoder;
import io.ncclinspector.internal.RecordSink;
import io.ncclinspector.internal.TraceRecording;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In-process NCCL collective observability.
 *
 * <pre>{@code
 * try (NcclInspector inspector = NcclInspector.enable()) {
 *   // create NCCL communicators and train; every communicator of the process is profiled
 * }
 * }</pre>
 *
 * <p>{@link #enable()} loads the native core, points NCCL at it ({@code NCCL_PROFILER_PLUGIN})
 * and starts the dump thread. Call it before the first NCCL communicator of the process is
 * created: NCCL looks for its profiler plugin once, at the first communicator init (and again only
 * after all communicators are destroyed).
 *
 * <p>One inspector is active per process at a time, because NCCL has one profiler slot per
 * process. Enabling a second one while the first is open fails with an
 * {@link IllegalStateException}; use {@link #current()} to share the active one. {@link #close()}
 * (also run at JVM shutdown) flushes operations still in flight and writes every completed record
 * before returning; closing twice is harmless.
 */
public final class NcclInspector implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NcclInspector.class);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);
  /**
   * Records the JSON writer may fall behind the dump thread by (absorbing disk stalls) before
   * records are dropped and counted (json_backlog_full).
   */
  private static final int JSON_BACKLOG = 1 << 18;
  /** Native ring of the raw event recording: 65536 cells (4 MiB), about 21k callbacks. */
  private static final int TRACE_RING_CELLS = 1 << 16;
  private static final Object LOCK = new Object();
  private static NcclInspector active;

  private final InspectorConfig config;
  private final NativeCore core;
  private final CommunicatorRegistry communicators;
  private final JsonFileSink jsonSink;
  private final AsyncSink jsonWriter;
  private final DumpThread dumpThread;
  private final TraceRecording recording;
  private final Thread shutdownHook;
  private volatile boolean closed;

  private NcclInspector(InspectorConfig config, NativeCore core, CommunicatorRegistry communicators,
      JsonFileSink jsonSink, AsyncSink jsonWriter, DumpThread dumpThread, TraceRecording recording) {
    this.config = config;
    this.core = core;
    this.communicators = communicators;
    this.jsonSink = jsonSink;
    this.jsonWriter = jsonWriter;
    this.dumpThread = dumpThread;
    this.recording = recording;
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
        return new NcclInspector(config, null, null, null, null, null, null);
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
      CommunicatorRegistry communicators = new CommunicatorRegistry();
      List<RecordSink> sinks = new ArrayList<>();
      JsonFileSink json = null;
      AsyncSink jsonWriter = null;
      if (config.jsonOutput()) {
        json = JsonFileSink.open(config, gitRevision());
        jsonWriter = new AsyncSink(json, "nccl-inspector-json-writer", JSON_BACKLOG);
        sinks.add(jsonWriter);
      }
      TraceRecording recording = config.traceFile()
          .map(f -> TraceRecording.start(f, config.traceMaxBytes(), TRACE_RING_CELLS)).orElse(null);
      DumpThread thread = new DumpThread(core, new RecordDecoder(core, communicators), sinks,
          config.dumpInterval(), recording);
      NcclInspector inspector = new NcclInspector(config, core, communicators, json, jsonWriter, thread, recording);
      thread.start();
      Runtime.getRuntime().addShutdownHook(inspector.shutdownHook);
      active = inspector;
      log.info("NCCL Inspector enabled: {}={}{}", PluginEnvironment.PLUGIN_VARIABLE, core.libraryPath(),
          json != null ? ", output " + json.file() : "");
      return inspector;
    }
  }

  /** The inspector active in this process, if one is. */
  public static Optional<NcclInspector> current() {
    synchronized (LOCK) {
      return active != null && !active.closed ? Optional.of(active) : Optional.empty();
    }
  }

  public InspectorConfig config() {
    return config;
  }

  /** False for an inspector disabled by configuration, and after close. */
  public boolean isActive() {
    return core != null && !closed;
  }

  /** The shared object NCCL is pointed at (empty when disabled). */
  public Optional<Path> libraryPath() {
    return Optional.ofNullable(core).map(NativeCore::libraryPath);
  }

  /** The JSON Lines file (empty when JSON output is off or the inspector is disabled). */
  public Optional<Path> outputFile() {
    return Optional.ofNullable(jsonSink).map(JsonFileSink::file);
  }

  /** Why JSON output stopped, if it did (for example an unwritable dump directory). */
  public Optional<String> outputError() {
    return Optional.ofNullable(jsonSink).flatMap(JsonFileSink::error);
  }

  /** Records written to the JSON file so far. */
  public long recordsWritten() {
    return jsonSink == null ? 0 : jsonSink.linesWritten();
  }

  /** Records written to the quarantine file so far (GPU timestamps unusable). */
  public long recordsQuarantined() {
    return jsonSink == null ? 0 : jsonSink.linesQuarantined();
  }

  /** The quarantine file beside the output file (it exists once a record was quarantined). */
  public Optional<Path> quarantineFile() {
    return Optional.ofNullable(jsonSink).map(JsonFileSink::quarantineFile);
  }

  /** The raw event recording file, if recording is on and could start. */
  public Optional<Path> traceFile() {
    return Optional.ofNullable(recording).map(TraceRecording::file);
  }

  /** Callbacks written to the raw event recording so far. */
  public long traceEventsWritten() {
    return recording == null ? 0 : recording.eventsWritten();
  }

  /** Callbacks not written because the recording reached its size bound. */
  public long traceEventsDroppedAtLimit() {
    return recording == null ? 0 : recording.eventsDroppedAtLimit();
  }

  /** Records the dump thread has received from the native core so far. */
  public long recordsReceived() {
    return dumpThread == null ? 0 : dumpThread.recordsDelivered();
  }

  /**
   * Drop, note and quarantine counters since this inspector was enabled: the native core's, and
   * the JVM side's own ({@code json_backlog_full}: records the JSON writer could not take;
   * {@code json_not_written}: records lost to an output error).
   */
  public EventCounters counters() {
    if (core == null) {
      return EventCounters.empty();
    }
    EventCounters n = core.counters();
    java.util.Map<String, Long> drops = new java.util.LinkedHashMap<>(n.drops());
    drops.put("json_backlog_full", jsonWriter == null ? 0 : jsonWriter.dropped());
    drops.put("json_not_written", jsonSink == null ? 0 : jsonSink.linesNotWritten());
    return new EventCounters(drops, n.notes(), n.quarantined());
  }

  /** Communicators currently live (as far as the dump thread has seen). */
  public Collection<CommunicatorInfo> communicators() {
    return communicators == null ? List.of() : communicators.live();
  }

  /** Asks the dump thread to drain and flush the output soon. */
  public void flush() {
    if (dumpThread != null && !closed) {
      dumpThread.requestFlush();
    }
  }

  /**
   * Stops profiling: operations still in flight are closed (with the timing they have), every
   * completed record is written, the output is closed and native memory is released (or, if NCCL
   * communicators are still alive, released when the last of them is destroyed).
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
      core.close();
      try {
        if (!dumpThread.finish(CLOSE_TIMEOUT)) {
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
      log.info("NCCL Inspector closed: {} records written{}", recordsWritten(),
          outputFile().map(p -> " to " + p).orElse(""));
    }
  }

  private static String gitRevision() {
    String v = NcclInspector.class.getPackage().getImplementationVersion();
    return "nccl-inspector-jvm-" + (v != null ? v : "dev");
  }
}
