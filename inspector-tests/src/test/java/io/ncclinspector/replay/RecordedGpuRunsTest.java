package io.ncclinspector.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.testsupport.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The raw recordings of this project's GPU validation on 2 x H200 over NVLink (testdata/traces/x2_*,
 * made by examples/gpu-validation.sh and examples/make-gpu-fixtures.py): a replay of rank 0 must
 * give the records the inspector delivered live in that run, field for field where it matters
 * (timing source, quarantine, channels left out, execution time), and every collective time must
 * sit within launch overhead of its kernel's CUPTI duration, measured in the same run.
 *
 * <p>The facts they pin: after the first AlltoAll, small collectives on lagging channels are left
 * untimed and larger ones are timed from their in-step channels (reproducer, MoE loop); 70 AlltoAlls
 * take the lag past NCCL's 64 slots and change nothing about that (lag70); the planted 2 ms waits
 * of the detector recording are measured as such; point-to-point times end at the send side.
 */
class RecordedGpuRunsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** In step, a channel runs 2.8-3.6 µs shorter than its kernel; 5 % more for timer granularity. */
  private static final double SHORTER_AT_MOST_US = 6.0;
  private static final double LONGER_AT_MOST_US = 1.0;

  @TempDir Path out;

  @TestFactory
  Stream<DynamicTest> replaysGiveTheLiveRecordsAndKernelTimes() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    for (String scenario : TestData.scenarios()) {
      Path live = TestData.traces().resolve(scenario).resolve("live-rank0.ndjson");
      if (Files.exists(live) && Files.size(live) > 0) {
        tests.add(DynamicTest.dynamicTest(scenario, () -> check(scenario, live)));
      }
    }
    assertFalse(tests.isEmpty(), "no recorded GPU runs in testdata");
    return tests.stream();
  }

  private void check(String scenario, Path liveFile) throws IOException {
    Map<String, List<JsonNode>> replayed = replayRank0(scenario);
    Map<String, Integer> occurrences = new HashMap<>();
    int matched = 0;
    int untimed = 0;
    int partial = 0;
    int againstKernel = 0;
    double worst = 0;
    for (String line : Files.readAllLines(liveFile)) {
      JsonNode live = JSON.readTree(line);
      String op = live.get("operation").asText();
      String key = op + "#" + live.get("sequence").asLong();
      /* A run with several communicators repeats sequence numbers: the k-th live record of a key is
         the k-th replayed one (each communicator's operations ran after the previous one's). */
      int k = occurrences.merge(key, 1, Integer::sum) - 1;
      List<JsonNode> candidates = replayed.getOrDefault(key, List.of());
      assertTrue(k < candidates.size(), () -> scenario + ": no replayed record for live " + key + " #" + k);
      JsonNode r = candidates.get(k);
      matched++;
      String kind = r.has("coll") ? "coll" : "p2p";
      assertEquals(live.get("timing").asText().toLowerCase(), r.get(kind + "_timing_source").asText(), key);
      assertEquals(live.get("quarantine").asText().toLowerCase(),
          r.path(kind + "_quarantine_reason").asText("none"), key);
      assertEquals(live.get("desynced").asInt(), r.path(kind + "_channels_desynced").asInt(0), key);
      assertEquals(live.get("exec_ns").asLong(), r.get(kind + "_exec_time_ns").asLong(), key);
      if (live.get("timing").asText().equals("NONE")) {
        untimed++;
        continue;
      }
      if (live.get("desynced").asInt() > 0) {
        partial++;
      }
      if (live.get("kernel_us").isNull() || !live.get("timing").asText().equals("KERNEL_GPU")) {
        continue;
      }
      double kernel = live.get("kernel_us").asDouble();
      double ours = live.get("exec_ns").asLong() / 1000.0;
      if (kind.equals("p2p")) {
        assertTrue(ours <= kernel + LONGER_AT_MOST_US, key + ": a send-side time longer than its kernel");
        assertTrue(r.path("p2p_flags").toString().contains("send_side_stop"), key);
      } else if (!op.equals("AlltoAll")) {
        double gap = kernel - ours;
        assertTrue(gap <= SHORTER_AT_MOST_US + 0.05 * kernel && gap >= -LONGER_AT_MOST_US,
            key + ": ours " + ours + " us, its kernel " + kernel + " us");
        worst = Math.max(worst, gap);
        againstKernel++;
      }
    }
    System.out.printf("%s: %d live records replayed alike (%d untimed, %d timed from in-step channels);"
        + " %d collective times within launch overhead of their CUPTI kernel durations (largest gap %.1f us)%n",
        scenario, matched, untimed, partial, againstKernel, worst);
    assertTrue(matched > 0);
  }

  @Test
  void everyGraphReplayIsOneGraphLaunchedRecord() throws IOException {
    List<JsonNode> replayed = replayRank0("x2_graph").values().stream().flatMap(List::stream).toList();
    long graphLaunched = replayed.stream()
        .filter(r -> r.path("coll_flags").toString().contains("graph_launched")).count();
    long timed = replayed.stream()
        .filter(r -> "kernel_gpu".equals(r.path("coll_timing_source").asText())).count();
    /* 4 AllReduces captured, 2 warm-up + 200 timed replays. */
    assertEquals(808, replayed.size(), "one record per operation per replay");
    assertEquals(808, graphLaunched);
    assertEquals(808, timed);
  }

  /**
   * Records of the replay of rank 0's trace (normal and quarantine output), by operation#sequence,
   * in the order of their communicators' creation.
   */
  private Map<String, List<JsonNode>> replayRank0(String scenario) throws IOException {
    Path trace = null;
    for (Path t : TestData.traceFiles(scenario)) {
      for (JsonNode e : ReferenceConformanceTest.readLines(t)) {
        if ("init".equals(e.path("ev").asText())) {
          if (e.get("rank").asInt() == 0) {
            trace = t;
          }
          break;
        }
      }
    }
    assertNotNull(trace, scenario + ": no trace of rank 0");
    ReplayResult result = TraceReplayer.replay(trace, InspectorConfig.builder()
        /* The live runs predate channel recovery: replayed as they ran (recovery: GroundTruthTest). */
        .channelRecovery(false).dumpDirectory(out.resolve(scenario))
        .minMessageBytes(0).requireKernelTiming(false).build(), "vm");
    assertTrue(result.problems().isEmpty(), () -> "trace problems: " + result.problems());
    List<JsonNode> lines = new ArrayList<>();
    try (Stream<Path> files = Files.list(out.resolve(scenario))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".log")).toList()) {
        lines.addAll(ReferenceConformanceTest.readLines(f));
      }
    }
    List<String> communicators = new ArrayList<>();
    for (JsonNode e : ReferenceConformanceTest.readLines(trace)) {
      if ("init".equals(e.path("ev").asText())) {
        communicators.add("0x" + Long.toHexString(Long.parseUnsignedLong(e.get("commId").asText().substring(2), 16)));
      }
    }
    lines.sort(java.util.Comparator.comparingInt(l -> communicators.indexOf(l.at("/header/id").asText())));
    Map<String, List<JsonNode>> byKey = new HashMap<>();
    for (JsonNode l : lines) {
      JsonNode perf = l.has("coll_perf") ? l.get("coll_perf") : l.get("p2p_perf");
      String op = perf.has("coll") ? perf.get("coll").asText() : perf.get("p2p").asText();
      long seq = perf.has("coll_sn") ? perf.get("coll_sn").asLong() : perf.get("p2p_sn").asLong();
      byKey.computeIfAbsent(op + "#" + seq, x -> new ArrayList<>()).add(perf);
    }
    return byKey;
  }
}
