package io.ncclinspector.examples.bench;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.nativecore.InspectorNative;
import io.ncclinspector.nativecore.ProfilerTableDriver;
import io.ncclinspector.replay.TraceEvents;
import io.ncclinspector.replay.TraceReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Records per second through the dump thread: a recorded trace is driven through the plugin table
 * over and over, kept just below the point where the native ring would overflow, while the dump
 * thread drains, decodes and (with JSON on) writes. Reported with JSON output on and off, in the
 * same run, so the cost of writing is visible against the cost of draining and decoding.
 *
 * <pre>
 * bench/dump-throughput [TRACE] [SECONDS]
 * </pre>
 */
public final class DumpThroughputBenchmark {
  private DumpThroughputBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path trace = Path.of(args.length > 0 ? args[0] : "examples/traces/h3_mix-trace-pid1061.jsonl.gz");
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 5;
    TraceEvents events = new TraceReader().read(trace);
    run(events, false, 1); /* warm-up */
    run(events, true, 1);
    double decodeOnly = run(events, false, seconds);
    double withJson = run(events, true, seconds);
    System.out.printf("trace %s: dump thread sustained %,.0f records/s decoding only, %,.0f records/s "
        + "writing JSON Lines (ratio %.2f)%n", trace.getFileName(), decodeOnly, withJson, withJson / decodeOnly);
  }

  private static double run(TraceEvents events, boolean json, double seconds) throws Exception {
    Path out = Files.createTempDirectory("nccl-inspector-bench");
    InspectorConfig config = InspectorConfig.builder().fromEnvironment().dumpDirectory(out).jsonOutput(json)
        .minMessageBytes(0).requireKernelTiming(false).dumpInterval(Duration.ofSeconds(1)).build();
    long start = System.nanoTime();
    long deadline = start + (long) (seconds * 1e9);
    NcclInspector inspector = NcclInspector.enable(config);
    String lib = inspector.libraryPath().orElseThrow().toString();
    while (System.nanoTime() < deadline) {
      ProfilerTableDriver.open(lib);
      ProfilerTableDriver.prepare(events.maxHandleId(), events.maxContextId());
      ProfilerTableDriver.run(events.events(), events.count(), 0, null);
      ProfilerTableDriver.close();
      while (InspectorNative.ringUsedCells() > config.ringCells() / 2) {
        Thread.onSpinWait();
      }
    }
    inspector.close();
    double elapsed = (System.nanoTime() - start) / 1e9;
    long records = inspector.recordsReceived();
    long dropped = inspector.counters().totalDrops();
    if (dropped > 0) {
      System.out.printf("  (%d records dropped: %s)%n", dropped, inspector.counters().drops());
    }
    Files.walk(out).sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
    return records / elapsed;
  }
}
