package io.ncclinspector.replay;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.ProcessIdentity;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import java.io.IOException;
import java.nio.file.Path;
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
    TraceEvents events = new TraceReader().read(trace);
    for (String problem : events.problems()) {
      log.warn(problem);
    }
    long pid = events.recordedPid().orElse(ProcessHandle.current().pid());
    InspectorConfig.Builder builder = config.toBuilder().processIdentity(new ProcessIdentity(hostname, pid));
    /* -Dnccl.inspector.replay.deferred=true replays every trace in the deferred mode (the test suites
     * run once each way). */
    if (Boolean.getBoolean("nccl.inspector.replay.deferred")) {
      log.info("replaying {} in the deferred mode (nccl.inspector.replay.deferred)", trace.getFileName());
      builder.deferred(true);
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
        calls = ProfilerTableDriver.run(events.events(), events.count(), 1, null);
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
