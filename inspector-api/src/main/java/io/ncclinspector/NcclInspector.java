package io.ncclinspector;

import io.ncclinspector.internal.ExporterSet;
import io.ncclinspector.internal.InspectorRuntime;
import io.ncclinspector.internal.ThreadTags;
import io.ncclinspector.internal.Ticker;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
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
 * encodes the JSON Lines and {@code nccl-inspector-json-append} appends them to the files;
 * {@code nccl-inspector-analysis} keeps the statistics and finds slow
 * collectives; {@code nccl-inspector-watchdog} looks for hangs; each listener has its own thread.
 * None of them ever blocks NCCL.
 */
public final class NcclInspector implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NcclInspector.class);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);
  /** Guards enabling and closing: one active inspector per process. */
  private static final Object LOCK = new Object();
  /* Written under LOCK; read without it, so that current() never waits for a close in progress
     (a listener asking for the inspector from its callback while close waits for it). */
  private static volatile NcclInspector active;

  private final InspectorConfig config;
  /** What it runs (internal/InspectorRuntime); null for an inspector disabled by configuration. */
  private final InspectorRuntime runtime;
  private final Thread shutdownHook;
  private volatile boolean closed;

  private NcclInspector(InspectorConfig config, InspectorRuntime runtime) {
    this.config = config;
    this.runtime = runtime;
    this.shutdownHook = runtime == null ? null : new Thread(this::closeAtShutdown, "nccl-inspector-shutdown");
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
      if (!config.ignoredVariables().isEmpty()) {
        log.warn("NCCL Inspector: {} set but read by nothing here (misspelt, not supported, or its exporter module"
            + " is not on the class path); ignored", config.ignoredVariables());
      }
      if (!config.enabled()) {
        log.info("NCCL Inspector disabled by configuration (NCCL_INSPECTOR_ENABLE=0): not profiling");
        return new NcclInspector(config, null);
      }
      ForExporters forExporters = new ForExporters();
      NcclInspector inspector = new NcclInspector(config, InspectorRuntime.start(config, ticker, () -> forExporters));
      forExporters.inspector = inspector;
      Runtime.getRuntime().addShutdownHook(inspector.shutdownHook);
      active = inspector;
      log.info("NCCL Inspector enabled: {}", inspector.runtime.describe());
      return inspector;
    }
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
    return runtime != null && !closed;
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
    return runtime.addListener(selector, listener, queueCapacity);
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
   * nest: closing restores the previous one). Names are kept for the life of the JVM: past 65,534
   * distinct names, the collectives of every new name are tagged {@code (other)} (counted as the
   * note {@code phase_other}, said once in the log); this never throws into the application.
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
      runtime.setPaused(true);
    }
  }

  public void resume() {
    if (isActive()) {
      runtime.setPaused(false);
    }
  }

  /** Changes the smallest message tracked, for operations that start from now on. */
  public void setMinMessageBytes(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("minimum message size must not be negative: " + bytes);
    }
    if (isActive()) {
      runtime.setMinMessageBytes(bytes);
    }
  }

  // ---- snapshots and export ----

  /**
   * An immutable view of what the inspector has seen so far. Records still on their way from the
   * native ring (a few milliseconds' worth) are not in it yet.
   */
  public InspectorSnapshot snapshot() {
    if (runtime == null) {
      return emptySnapshot();
    }
    return runtime.snapshot(status());
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
    return runtime.exportRecords(out, selector);
  }

  // ---- status and counters ----

  /**
   * Where the inspector stands: active or not, whether NCCL ever reached it, what it received and
   * wrote, where its files are, and whether anything was lost (see {@link InspectorStatus#problems()}).
   */
  public InspectorStatus status() {
    if (runtime == null) {
      return new InspectorStatus(InspectorStatus.State.DISABLED, Optional.empty(), false, 0,
          InspectorStatus.Records.NONE, Optional.empty(), Optional.empty(), 0, InspectorStatus.Nccl.NONE, List.of());
    }
    return runtime.status(closed);
  }

  /**
   * The started exporter of a type ({@code PrometheusTextfileExporter}, ...), to ask it what only it
   * knows; empty if the configuration started none of that type or the inspector is disabled.
   */
  public <T> Optional<T> exporter(Class<T> type) {
    return runtime == null ? Optional.empty() : runtime.exporter(type);
  }

  /**
   * Drop, note and quarantine counters since this inspector was enabled: the native core's, and
   * the JVM side's own ({@code json_backlog_full}, {@code analysis_backlog_full}: records a writer
   * thread could not take; {@code json_not_written}: records lost to an output error).
   */
  public EventCounters counters() {
    return runtime == null ? EventCounters.empty() : runtime.counters();
  }

  /** Communicators currently live (as far as the dump thread has seen). */
  public Collection<CommunicatorInfo> communicators() {
    return runtime == null ? List.of() : runtime.communicators();
  }

  /**
   * Asks the dump thread to drain and flush the output soon: the JSON file is flushed and the
   * exporters are told to write now ({@link io.ncclinspector.spi.InspectorExporter#flushNow()}),
   * whatever their interval. The records of operations that completed before the call are in that
   * drain (in the deferred mode the dump thread first has the core replay the calls logged so
   * far, as far as its record ring takes them).
   */
  public void flush() {
    if (runtime != null && !closed) {
      runtime.requestFlush();
    }
  }

  /**
   * Requested flushes ({@link #flush}) carried out all the way: by the dump thread and by the
   * JSON writer's thread. Tests wait on it rather than for a while.
   */
  long flushesMade() {
    return runtime == null ? 0 : runtime.flushesMade();
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
      if (closed || runtime == null) {
        closed = true;
        return;
      }
      closed = true;
      runtime.close(Thread.currentThread(), CLOSE_TIMEOUT);
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
      InspectorRuntime.logClosed(status());
    }
  }

  /** The inspector as its exporters' context sees it (they start before the inspector exists). */
  private static final class ForExporters implements ExporterSet.Inspector {
    private volatile NcclInspector inspector;

    @Override
    public EventCounters counters() {
      return inspector.counters();
    }

    @Override
    public InspectorStatus status() {
      return inspector.status();
    }

    @Override
    public InspectorSnapshot snapshot() {
      return inspector.snapshot();
    }
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
