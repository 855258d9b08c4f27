package io.ncclinspector.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.EventCounters;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.testsupport.TestData;
import io.ncclinspector.nativecore.InspectorNative;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The case behind this project's lifetime design: collectives whose child events never come
 * (intra-node traffic without kernel events). The h3_mix trace with every KernelCh and proxy
 * event removed is replayed until one communicator has seen a million collectives. Native memory
 * must stay flat, and every collective must be either written (CPU timing) or counted as dropped,
 * as configured.
 *
 * <p>The replay is paced to the dump thread (see {@link #paceToTheDrainThread}).
 */
class NoChildEventsTest {
  private static final int COLLECTIVES = 1_000_000;
  private static final Set<String> CHILD_TYPES = Set.of("KernelCh", "ProxyOp", "ProxyStep", "ProxyCtrl", "NetPlugin");
  private static final Pattern TYPE = Pattern.compile("\"type\":\"(\\w+)\"");
  private static final Pattern HANDLE = Pattern.compile("\"h\":(\\d+)");

  @TempDir Path dir;

  @ParameterizedTest(name = "requireKernelTiming={0}")
  @ValueSource(booleans = {false, true})
  void aMillionCollectivesWithoutChildren(boolean requireKernelTiming) throws IOException {
    Path stripped = stripChildren(TestData.traceFiles("h3_mix").get(0));
    TraceEvents trace = new TraceReader().read(stripped);
    ByteBuffer all = trace.events();
    int n = trace.count();
    int collsPerPass = countCollStarts(stripped);
    ByteBuffer init = all.slice(0, TraceEvents.eventBytes());
    ByteBuffer body = all.slice(TraceEvents.eventBytes(), TraceEvents.eventBytes() * (n - 2));
    ByteBuffer fini = all.slice(TraceEvents.eventBytes() * (n - 1), TraceEvents.eventBytes());

    InspectorConfig config = InspectorConfig.builder()
        .dumpDirectory(dir).minMessageBytes(0).trackP2p(false)
        .requireKernelTiming(requireKernelTiming).build();
    long collectives = 0;
    long mallocAfterWarmup = 0;
    NcclInspector inspector = NcclInspector.enable(config);
    try {
      assertEquals(0, ProfilerTableDriver.open(inspector.status().libraryPath().orElseThrow().toString()));
      ProfilerTableDriver.prepare(trace.maxHandleId(), trace.maxContextId());
      ProfilerTableDriver.run(init, 1, 0, null);
      int passes = 0;
      while (collectives < COLLECTIVES) {
        ProfilerTableDriver.run(body, n - 2, 0, null);
        collectives += collsPerPass;
        paceToTheDrainThread(config.ringCells(), inspector);
        if (++passes == 1000) {
          mallocAfterWarmup = ProfilerTableDriver.mallocInUse();
        }
      }
      long mallocAtEnd = ProfilerTableDriver.mallocInUse();
      ProfilerTableDriver.run(fini, 1, 0, null);
      long growth = mallocAtEnd - mallocAfterWarmup;
      System.out.printf("%,d collectives without children: malloc'd bytes in use %,d after warm-up, %,d at the end%n",
          collectives, mallocAfterWarmup, mallocAtEnd);
      /* The JVM's own malloc use swings by some 30 MB while it warms up (JIT arenas come and go);
         an in-flight slot is 11.3 KiB, so a leak of slots, or of anything per collective above 64
         bytes, exceeds this bound many times over. The native test (test_lifetimes.c) checks the
         core alone, without a JVM, to within 512 KiB. */
      assertTrue(growth < 64L << 20, "native memory grew by " + growth + " bytes over " + collectives + " collectives");
    } finally {
      ProfilerTableDriver.close();
      inspector.close();
    }
    EventCounters c = inspector.counters();
    long closedEarly = c.get("evicted_table_full") + c.get("expired_no_kernel") + c.get("flushed_at_finalize");
    assertEquals(collectives, closedEarly, "every collective was closed early, by reason: " + c.notes());
    assertEquals(0, c.get("ring_full") + c.get("op_table_full") + c.get("stale_handle"), c.drops()::toString);
    if (requireKernelTiming) {
      assertEquals(0, inspector.status().records().written());
      assertEquals(collectives, c.get("no_gpu_timing"));
    } else {
      assertEquals(collectives, inspector.status().records().written());
      assertEquals(0, c.get("no_gpu_timing"));
      assertEquals(collectives, Files.lines(inspector.status().output().orElseThrow().file())
          .filter(l -> l.contains("\"coll_timing_source\":\"collective_cpu\"")).count());
    }
  }

  /**
   * The driver replays far faster than NCCL can run collectives; waiting while the ring is more
   * than a quarter full, or the JSON writer far behind, keeps it at a rate the JVM side sustains,
   * so that what is measured is the lifetime handling, not overflow (which the benchmarks
   * measure), and the JVM's own native memory (GC structures of a growing heap) stays out of it.
   */
  private static void paceToTheDrainThread(int ringCells, NcclInspector inspector) {
    while (InspectorNative.ringUsedCells() > ringCells / 4
        || inspector.status().records().received() - inspector.status().records().written() > 20_000) {
      Thread.onSpinWait();
    }
  }

  /** The trace without KernelCh and proxy events (their start, state and stop lines). */
  private Path stripChildren(Path trace) throws IOException {
    List<String> kept = new ArrayList<>();
    Set<String> dropped = new HashSet<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(
        new GZIPInputStream(Files.newInputStream(trace)), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        Matcher h = HANDLE.matcher(line);
        String handle = h.find() ? h.group(1) : null;
        if (line.contains("\"ev\":\"start\"")) {
          Matcher t = TYPE.matcher(line);
          if (t.find() && CHILD_TYPES.contains(t.group(1))) {
            dropped.add(handle);
            continue;
          }
        } else if (handle != null && dropped.contains(handle)) {
          continue;
        }
        kept.add(line);
      }
    }
    Path out = dir.resolve("trace-pid1.jsonl");
    Files.write(out, kept, StandardCharsets.UTF_8);
    return out;
  }

  private static int countCollStarts(Path trace) throws IOException {
    try (var lines = Files.lines(trace)) {
      return (int) lines.filter(l -> l.contains("\"type\":\"Coll\"")).count();
    }
  }
}
