package io.ncclinspector.replay;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.ProcessIdentity;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays a recorded trace exactly as an application would run: the inspector is enabled with
 * {@link NcclInspector#enable(InspectorConfig)}, then a stand-in for NCCL {@code dlopen}s the
 * library that {@code NCCL_PROFILER_PLUGIN} names, looks up {@code ncclProfiler_v5} with
 * {@code dlsym} and makes the trace's calls; finally the inspector is closed. The output is the one
 * a real run would leave, under the recorded process id.
 *
 * <p>The core's clock follows the trace during the replay, so CPU-timed values are those of the
 * recorded run, not of the replay's speed.
 */
public final class TraceReplayer {
  private static final Logger log = LoggerFactory.getLogger(TraceReplayer.class);

  private TraceReplayer() {}

  /**
   * Replays one trace. The configuration's process identity is replaced by the recorded process
   * id (from the trace file name) and {@code hostname}.
   */
  public static ReplayResult replay(Path trace, InspectorConfig config, String hostname) throws IOException {
    return replay(trace, config, hostname, events -> ProfilerTableDriver.run(events.events(), events.count(), 1, null));
  }

  /**
   * Replays one trace on the threads that made its calls, at the pace they were made ({@code speed}
   * 1.0; 2.0 twice as fast): each recorded thread's calls come from a thread of their own, none
   * before its time from the trace's first call, none before the calls it names (its parent's
   * start, its communicator's init), none before the other threads' calls recorded more than
   * {@code window} earlier. Calls of two threads closer than that race as in a
   * live run, so two replays may differ where the inspector's verdicts depend on their order;
   * farther ones keep the recorded order, as causality kept it live (a kernel channel's timestamp is
   * read after the launch of its work). Each call reads its recorded time from the core's clock (a
   * virtual clock per thread), so CPU-timed values are the recorded run's, as in {@link #replay}:
   * only the order in which the inspector takes the calls is the replay's own.
   */
  public static PacedReplay replayPaced(Path trace, InspectorConfig config, String hostname, double speed,
      java.time.Duration window) throws IOException {
    long[] lag = new long[4];
    ReplayResult result = replay(trace, config, hostname, events -> ProfilerTableDriver.runPaced(events.events(),
        events.count(), speed, window.toNanos(), lag));
    return new PacedReplay(result, lag[0], lag[1], lag[2], lag[3]);
  }

  /**
   * A paced replay's result, and how late its calls came against their pace.
   *
   * @param meanLagNanos the mean of how late each call was made after its recorded time
   * @param maxLagNanos the latest call's lateness
   * @param inversions calls made after a call of another thread that was recorded later
   * @param maxInversionNanos the largest such inversion, in recorded time
   */
  public record PacedReplay(ReplayResult result, long meanLagNanos, long maxLagNanos, long inversions,
      long maxInversionNanos) {}

  private static ReplayResult replay(Path trace, InspectorConfig config, String hostname,
      ToLongFunction<TraceEvents> player)
      throws IOException {
    TraceEvents events = new TraceReader().read(trace);
    for (String problem : events.problems()) {
      log.warn(problem);
    }
    long pid = events.recordedPid().orElse(ProcessHandle.current().pid());
    InspectorConfig.Builder builder = config.toBuilder().processIdentity(new ProcessIdentity(hostname, pid));
    /* -Dnccl.inspector.replay.deferred=false|true replays every trace in that mode, whatever the
     * configuration says (the test suites run once each way; the deferred mode is the default). */
    String mode = System.getProperty("nccl.inspector.replay.deferred");
    if (mode != null && !mode.isBlank()) {
      boolean deferred = Boolean.parseBoolean(mode.strip());
      log.info("replaying {} {} (nccl.inspector.replay.deferred)", trace.getFileName(),
          deferred ? "in the deferred mode" : "synchronously");
      builder.deferred(deferred);
    }
    InspectorConfig replayConfig = builder.build();
    long calls;
    DriverLease lease = DriverLease.take("a replay of " + trace);
    NcclInspector inspector;
    try {
      inspector = NcclInspector.enable(replayConfig);
    } catch (RuntimeException e) {
      lease.close();
      throw e;
    }
    try (lease) {
      try {
        Path library = inspector.status().libraryPath().orElseThrow(
            () -> new IllegalStateException("the inspector is disabled by configuration: nothing to replay"));
        /* As NCCL does: the plugin the process environment names (enable() set it). */
        String pluginPath = ProfilerTableDriver.getenv("NCCL_PROFILER_PLUGIN");
        if (ProfilerTableDriver.open(pluginPath != null ? pluginPath : library.toString()) != 0) {
          throw new IOException("could not load the profiler plugin: " + ProfilerTableDriver.error());
        }
        if (ProfilerTableDriver.prepare(events.maxHandleId(), events.maxContextId()) != 0) {
          throw new IOException(ProfilerTableDriver.error());
        }
        calls = player.applyAsLong(events);
        if (calls < 0) {
          throw new IOException(ProfilerTableDriver.error());
        }
      } finally {
        inspector.close(); /* still on trace time: what is flushed at close is timed like the run */
        ProfilerTableDriver.setVirtualClock(0, 0, 0);
        /* A trace cut short leaves communicators open: finalized now, after the close (the output is
           complete), as the process's teardown would, so that none stays live in this JVM. A live
           one would keep every later enable from starting clean (the deferred mode starts only
           with none live). */
        ProfilerTableDriver.finalizeOpen();
        ProfilerTableDriver.close();
      }
    }
    return new ReplayResult(trace, events.count(), calls, inspector.counters(), events.problems(),
        events.endsWithFinalize(), events.cutShort(), inspector.status(), events.linesSkipped(), events.damaged());
  }
}
