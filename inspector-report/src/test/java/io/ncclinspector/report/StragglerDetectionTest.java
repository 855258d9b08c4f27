package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ncclinspector.report.analysis.ClockSync;
import io.ncclinspector.report.analysis.CollectiveSkew;
import io.ncclinspector.report.analysis.RankLateness;
import io.ncclinspector.report.analysis.RankSummary;
import io.ncclinspector.report.analysis.StragglerResult;
import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.engine.duckdb.EngineSettings;
import io.ncclinspector.report.output.OutputFiles;
import io.ncclinspector.report.output.TableFiles;
import io.ncclinspector.report.synthetic.LogFormat;
import io.ncclinspector.report.synthetic.SyntheticConfig;
import io.ncclinspector.report.synthetic.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Eight ranks on two nodes; rank 5 arrives 2 ms late at 30 % of the collectives. The others
 * wait for it inside the collective, so their execution times are the long ones: the report must
 * name rank 5, and only rank 5.
 */
class StragglerDetectionTest {
  private static final int ITERATIONS = 2000;
  private static final long LATE_NS = 2_000_000;

  @TempDir
  Path tmp;

  private SyntheticConfig.Builder eightRanks() {
    return SyntheticConfig.builder(tmp.resolve("logs")).nodes(2).gpusPerNode(4)
        .workload(Workload.WORLD_ALLREDUCE).iterations(ITERATIONS).seed(42);
  }

  private ReportResult report(ClockSync sync) throws Exception {
    return TestSupport.report(ReportOptions.builder(tmp.resolve("out-" + sync))
        .inputs(tmp.resolve("logs").toString()).threads(TestSupport.THREADS).progress(false).clockSync(sync)
        .build());
  }

  @Test
  void namesTheLateRankNotItsVictims() throws Exception {
    TestSupport.generate(eightRanks().straggler(5, 0.3, LATE_NS).build());
    ReportResult r = report(ClockSync.AUTO);
    StragglerResult s = r.data().stragglers();

    assertEquals(ITERATIONS, s.alignedCollectives());
    assertEquals(0, s.incompleteCollectives());
    List<RankLateness> suspects = s.suspects();
    assertEquals(1, suspects.size(), suspects.toString());
    RankLateness culprit = suspects.get(0);
    assertEquals(5, culprit.rank());
    assertEquals("node01", culprit.hostname());
    assertEquals(10_005L, culprit.pid());
    assertEquals(0.30, culprit.lateShare(), 0.04);
    assertEquals(s.lateCollectives(), culprit.lateCount(), "every held-up collective is its own");
    // Delay = its start minus the mean start of the others: 2 ms give or take the jitter.
    assertEquals(2000, culprit.delayP50Us(), 10);
    assertEquals(2000, culprit.delayMeanUs(), 10);

    // The victims' execution times are longer (they wait), the culprit's the shortest.
    List<RankLateness> world = s.ranks();
    assertEquals(8, world.size());
    RankLateness slowestExec = world.stream()
        .max(Comparator.comparingDouble(RankLateness::execMeanUs)).orElseThrow();
    assertTrue(slowestExec.rank() != 5 && !slowestExec.suspect(),
        "the rank with the longest execution time is a victim and not blamed");
    for (RankLateness victim : world) {
      if (victim.rank() != 5) {
        assertFalse(victim.suspect(), "rank " + victim.rank());
        assertTrue(victim.lateShare() < 0.01, "rank " + victim.rank() + " " + victim.lateShare());
        assertTrue(victim.execMeanUs() > culprit.execMeanUs() + 0.8 * 0.3 * 2000,
            "victim " + victim.rank() + " waits: " + victim.execMeanUs() + " vs "
                + culprit.execMeanUs());
      }
    }
    // The same holds in the per-rank summary a reader would look at first.
    List<RankSummary> ranks = r.data().ranks();
    RankSummary byExec = ranks.stream().max(Comparator.comparingDouble(RankSummary::execMeanUs))
        .orElseThrow();
    assertTrue(byExec.rank() != 5);

    // Most delayed collectives: rank 5 arrived last in all of them, by about 2 ms.
    List<CollectiveSkew> worst = s.worst();
    assertEquals(1000, worst.size(), "the default list length");
    for (CollectiveSkew c : worst.subList(0, 50)) {
      assertEquals(5, c.lastRank());
      assertEquals(2000, c.delayUs(), 10);
      assertTrue(c.leadUs() > 1980, "the second-to-last rank was on time: " + c.leadUs());
      assertTrue(c.lastExecUs() < c.meanExecUs(), "the late rank does not wait");
    }
    assertTrue(s.processes().get(0).suspectIn() == 1 && s.processes().get(0).pid() == 10_005L);

    // Every aligned collective is in the Parquet file.
    try (DuckDbEngine e = DuckDbEngine.open(new EngineSettings(1, null, tmp.resolve("t")))) {
      long rows = e.query("SELECT count(*) FROM read_parquet(" + DuckDbEngine.literal(
          r.outputDirectory().resolve(OutputFiles.COLLECTIVES).toString()) + ")",
          q -> q.getLong(1)).get(0);
      assertEquals(ITERATIONS, rows);
    }
  }

  @Test
  void clockOffsetsBetweenNodesAreRemovedNotBlamed() throws Exception {
    // Node 1's GPU clocks (ranks 4-7) run 500 µs ahead of node 0's.
    TestSupport.generate(eightRanks().straggler(5, 0.3, LATE_NS)
        .nodeClockOffsetsNanos(List.of(0L, 500_000L)).build());

    StragglerResult auto = report(ClockSync.AUTO).data().stragglers();
    assertEquals(Set.of(5), auto.suspects().stream().map(RankLateness::rank)
        .collect(Collectors.toSet()));
    for (RankLateness r : auto.ranks()) {
      double expected = r.rank() >= 4 ? 500 : 0;
      // Offsets are relative to the collective's median end; with four ranks on each node the
      // median sits between the nodes, so only differences are meaningful.
      assertEquals(expected, r.clockOffsetUs() - auto.ranks().stream()
          .filter(x -> x.rank() == 0).findFirst().orElseThrow().clockOffsetUs(), 5,
          "rank " + r.rank());
    }
    assertTrue(auto.notes().stream().anyMatch(n -> n.startsWith("GPU clocks differ")));

    // Trusting the raw timestamps blames the whole node that runs ahead.
    StragglerResult raw = report(ClockSync.NONE).data().stragglers();
    Set<Integer> blamed = raw.suspects().stream().map(RankLateness::rank)
        .collect(Collectors.toSet());
    assertTrue(blamed.containsAll(Set.of(4, 6, 7)), blamed.toString());
  }

  @Test
  void withoutAStragglerNobodyIsBlamed() throws Exception {
    TestSupport.generate(eightRanks().build());
    StragglerResult s = report(ClockSync.AUTO).data().stragglers();
    assertEquals(ITERATIONS, s.alignedCollectives());
    assertTrue(s.suspects().isEmpty(), s.suspects().toString());
    assertEquals(0, s.lateCollectives(), "jitter stays below the 20 µs threshold");
  }

  @Test
  void referenceLogsHaveNoGpuStartAndSayWhy() throws Exception {
    TestSupport.generate(eightRanks().iterations(50).format(LogFormat.REFERENCE)
        .straggler(5, 0.3, LATE_NS).build());
    ReportResult r = report(ClockSync.AUTO);
    StragglerResult s = r.data().stragglers();
    assertEquals(0, s.alignedCollectives());
    assertTrue(s.suspects().isEmpty());
    assertTrue(s.notes().get(0).contains("coll_gpu_start_ns"), s.notes().toString());
    assertEquals(400, r.data().overview().records(), "the rest of the report still works");
  }

  @Test
  void recordsInTwoFilesAreCountedOnce() throws Exception {
    TestSupport.generate(eightRanks().iterations(300).straggler(5, 0.3, LATE_NS).build());
    Path logs = tmp.resolve("logs");
    // A copy taken while the job ran (its first 200 records): not the same file, the same
    // records. (A file of identical content is read once: HostileInputTest.)
    Files.write(logs.resolve("copy-of-rank5.log"), Files.readAllLines(
        logs.resolve("node01-pid10005.log")).subList(0, 200));
    StragglerResult s = report(ClockSync.AUTO).data().stragglers();
    assertEquals(200, s.duplicateRecords());
    assertEquals(300, s.alignedCollectives());
    assertEquals(0, s.incompleteCollectives());
    assertEquals(List.of(5), s.suspects().stream().map(RankLateness::rank).toList());
  }

  /**
   * Two ranks arrive last at the same nanosecond: the higher one is named, whether the arrival
   * key fits in 64 bits (times close together) or is the dialect's wide pair (one collective
   * 2^61 ns after the others, past what a packed key of four ranks can hold: ArrivalKeyTest).
   */
  @Test
  void aTieForLastGoesToTheHigherRankWhateverTheKeyWidth() throws Exception {
    for (boolean wide : new boolean[] {false, true}) {
      Path gen = tmp.resolve("gen-" + wide);
      Path logs = tmp.resolve("tie-" + wide);
      Files.createDirectories(logs);
      TestSupport.generate(SyntheticConfig.builder(gen).nodes(1).gpusPerNode(4)
          .workload(Workload.WORLD_ALLREDUCE).iterations(20).seed(3).build());
      long[] tie = new long[2]; // sn and start of the tied collective
      for (int rank = 0; rank < 4; rank++) {
        List<String> lines = TestSupport.lines(gen.resolve("node00-pid1000" + rank + ".log"));
        if (rank == 0) {
          JsonNode perf = TableFiles.json().readTree(lines.get(5)).get("coll_perf");
          tie[0] = perf.get("coll_sn").asLong();
          tie[1] = perf.get("coll_gpu_start_ns").asLong();
        }
        lines.set(5, withStart(lines.get(5), tie[1] + (rank == 1 || rank == 2 ? 5_000_000 : 0)));
        if (wide) {
          lines.set(10, withStart(lines.get(10), 1L << 61));
        }
        TestSupport.writeLines(logs.resolve("r" + rank + ".log"), lines);
      }
      ReportResult r = TestSupport.report(ReportOptions.builder(tmp.resolve("out-tie-" + wide))
          .inputs(logs.toString()).threads(TestSupport.THREADS).progress(false)
          .clockSync(ClockSync.NONE).build());
      StragglerResult s = r.data().stragglers();
      assertEquals(20, s.alignedCollectives());
      CollectiveSkew tied = s.worst().stream().filter(c -> c.sn() == tie[0]).findFirst()
          .orElseThrow();
      assertEquals(2, tied.lastRank(), "wide key: " + wide);
      // last − mean of the others: 5 ms − (0 + 0 + 5 ms) / 3, the quotient truncated in ns
      assertEquals(3333.334, tied.delayUs(), 1e-9, "wide key: " + wide);
      if (wide) {
        assertEquals(3, s.worst().stream().filter(c -> c.firstStartNs() == 1L << 61)
            .findFirst().orElseThrow().lastRank(), "four ranks tied: the highest");
      }
    }
  }

  /** A collective record's line with its GPU start at {@code ns}. */
  private static String withStart(String line, long ns) throws Exception {
    return HostileInputTest.edit(line,
        r -> ((ObjectNode) r.get("coll_perf")).put("coll_gpu_start_ns", ns));
  }
}
