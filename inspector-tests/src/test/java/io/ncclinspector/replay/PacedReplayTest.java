package io.ncclinspector.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.internal.InspectorRuntime;
import io.ncclinspector.replay.LaunchedKernels.Kernel;
import io.ncclinspector.testsupport.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two NVLink recordings with CUPTI's kernel times ({@code n2_truth}, {@code n2_moe}: two H200,
 * NCCL 2.28.9) and a MoE loop over sockets ({@code s29_moe}, NCCL 2.29.7), replayed on their recorded threads at their recorded pace, synchronous and deferred,
 * each call at its recorded time (a virtual clock per thread). A replay one call after another shows
 * the inspector one order of the calls; here the application's thread and NCCL's proxy thread make
 * theirs at once, microseconds apart as over NVLink: calls of the two closer than a window race,
 * and a thread the replay runs late publishes its calls late, so the deferred mode merges logs
 * whose entries come out of order, and the synchronous core takes its calls as they race. In both modes every call of the
 * recording must reach the output (the same records as a replay in order), and no collective time
 * may be off its kernel: a time the inspector cannot vouch for is withheld, never wrong. How many it
 * withholds may differ from run to run (the threads race differently) and is printed.
 */
class PacedReplayTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** As GroundTruthTest: in step a channel runs 2.8-3.6 µs shorter than its kernel. */
  private static final long SHORTER_AT_MOST_NS = 6_000;
  private static final long LONGER_AT_MOST_NS = 1_000;
  /**
   * Calls of two threads closer than this may come in either order: synchronously, as two
   * callbacks race into the core; deferred, up to a millisecond, as a thread stopped between its
   * clock reading and its log entry's publication would leave them (the consumer takes what is
   * published, in clock order, so such an entry is merged late).
   */
  private static final Duration SYNC_WINDOW = Duration.ofNanos(Long.getLong("paced.window.ns", 2_000));
  private static final Duration DEFERRED_WINDOW = Duration.ofNanos(Long.getLong("paced.window.ns", 1_000_000));

  @TempDir Path out;

  @TestFactory
  Stream<DynamicTest> recordingsOnTheirThreadsAtTheirPace() {
    List<DynamicTest> tests = new ArrayList<>();
    /* Two NVLink recordings, and MoE loops over sockets (proxy events, 8.5 s: at twice the pace). */
    for (String[] s : new String[][] {{"n2_truth", "585", "1"}, {"n2_moe", "586", "1"}, {"s29_moe", "7096", "2"}}) {
      for (boolean deferred : new boolean[] {false, true}) {
        tests.add(DynamicTest.dynamicTest(s[0] + (deferred ? ", deferred" : ", synchronous"),
            () -> check(s[0], s[1], Double.parseDouble(s[2]), deferred)));
      }
    }
    return tests.stream();
  }

  private void check(String scenario, String pid, double speed, boolean deferred) throws IOException {
    Path dir = TestData.traces().resolve(scenario);
    Path trace = dir.resolve("trace/trace-pid" + pid + ".jsonl.gz");
    String name = scenario + (deferred ? "-deferred" : "-sync");
    ReplayResult inOrder = TraceReplayer.replay(trace, config(out.resolve(name + "-order"), deferred), "vm");
    TraceReplayer.PacedReplay paced = TraceReplayer.replayPaced(trace, config(out.resolve(name), deferred), "vm", speed,
        deferred ? DEFERRED_WINDOW : SYNC_WINDOW);
    ReplayResult r = paced.result();
    if (deferred) {
      assertFalse(r.status().problems().contains(InspectorRuntime.DEFERRED_NOT_STARTED), name + ": not deferred");
    }
    assertEquals(inOrder.callsMade(), r.callsMade(), name + ": calls made");
    List<JsonNode> ordered = records(out.resolve(name + "-order"));
    List<JsonNode> records = records(out.resolve(name));
    /* Every call the application made is in the output, timed or not. */
    assertEquals(keys(ordered), keys(records), name + ": the records");
    assertEquals(inOrder.counters().drops(), r.counters().drops(), name + ": drops");

    LaunchedKernels kernels = LaunchedKernels.read(trace, dir.resolve("cupti-rank0.ndjson"));
    int right = 0;
    int bounds = 0;
    int withheld = 0;
    int withheldInOrder = 0;
    List<String> wrong = new ArrayList<>();
    for (JsonNode rec : records) {
      JsonNode p = rec.get("coll_perf");
      if (p == null) {
        continue;
      }
      Kernel k = kernels.ofCollective(p.get("coll").asText() + "#" + p.get("coll_sn").asLong());
      if (k == null) {
        continue; /* launched before CUPTI recorded */
      }
      if (!"kernel_gpu".equals(p.get("coll_timing_source").asText())) {
        withheld++;
        continue;
      }
      long diff = p.get("coll_exec_time_ns").asLong() - k.durationNanos();
      boolean lowerBound = p.path("coll_bw_is_upper_bound").asBoolean();
      if (diff > LONGER_AT_MOST_NS + k.durationNanos() / 100_000 || (diff < -SHORTER_AT_MOST_NS && !lowerBound)) {
        wrong.add(p.get("coll").asText() + "#" + p.get("coll_sn") + ": " + p.get("coll_exec_time_ns") + " ns, kernel "
            + k.durationNanos() + " ns (" + k.name() + "), " + p.path("coll_time_recovery").asText());
      } else if (diff < -SHORTER_AT_MOST_NS) {
        bounds++;
      } else {
        right++;
      }
    }
    for (JsonNode rec : ordered) {
      JsonNode p = rec.get("coll_perf");
      if (p != null && kernels.ofCollective(p.get("coll").asText() + "#" + p.get("coll_sn").asLong()) != null
          && !"kernel_gpu".equals(p.get("coll_timing_source").asText())) {
        withheldInOrder++;
      }
    }
    System.out.printf("%s on its threads at its pace: %d collectives right, %d lower bounds, %d withheld, %d wrong"
        + " (in order: %d withheld); calls late by %.1f us on average, at most %.1f us; %d calls out of the"
        + " recorded order, by up to %.1f us%n", name, right, bounds, withheld, wrong.size(), withheldInOrder,
        paced.meanLagNanos() / 1e3, paced.maxLagNanos() / 1e3, paced.inversions(), paced.maxInversionNanos() / 1e3);
    assertEquals(List.of(), wrong, name + ": collective times off their kernels");
    assertTrue(right > 0, name + ": no collective timed at all");
  }

  private static InspectorConfig config(Path dir, boolean deferred) {
    return InspectorConfig.builder().dumpDirectory(dir).minMessageBytes(0).requireKernelTiming(false)
        .deferred(deferred).build();
  }

  /** Each record's identity: its kind, operation, sequence number and peer. */
  private static TreeSet<String> keys(List<JsonNode> records) {
    TreeSet<String> keys = new TreeSet<>();
    for (JsonNode rec : records) {
      String kind = rec.has("coll_perf") ? "coll" : "p2p";
      JsonNode p = rec.get(kind + "_perf");
      String key = rec.at("/header/id").asText() + " " + kind + " " + p.get(kind).asText() + " #"
          + p.get(kind + "_sn").asText() + " peer " + p.path(kind + "_peer").asText("-");
      assertTrue(keys.add(key), "a record twice: " + key);
    }
    return keys;
  }

  private static List<JsonNode> records(Path dir) throws IOException {
    List<JsonNode> all = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
        for (String line : Files.readAllLines(f)) {
          if (!line.isBlank()) {
            all.add(JSON.readTree(line));
          }
        }
      }
    }
    return all;
  }
}
