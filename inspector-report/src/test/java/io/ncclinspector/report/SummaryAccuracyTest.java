package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ncclinspector.report.analysis.ClassSummary;
import io.ncclinspector.report.analysis.CommunicatorSummary;
import io.ncclinspector.report.analysis.RankSummary;
import io.ncclinspector.report.analysis.SizeBucketing;
import io.ncclinspector.report.synthetic.SyntheticConfig;
import io.ncclinspector.report.synthetic.SyntheticResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The summaries are checked against figures computed here, independently, from the raw lines:
 * the reference exporter's classification, power-of-two buckets and linearly interpolated
 * percentiles.
 */
class SummaryAccuracyTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One record as the test reads it. */
  private record Rec(String comm, int rank, String type, String kind, String op, long size,
      double execUs, double busbw) {}

  private static String classify(int ranks, int nodes) {
    if (ranks == 1) {
      return "single-rank";
    }
    if (nodes == 1) {
      return "nvlink-only";
    }
    return ranks == nodes ? "hca-only" : "mixed";
  }

  /** The R-7 / DuckDB quantile_cont definition: interpolate at (n − 1) q. */
  private static double quantile(double[] sorted, double q) {
    double pos = (sorted.length - 1) * q;
    int lo = (int) Math.floor(pos);
    int hi = (int) Math.ceil(pos);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
  }

  @Test
  void classSummariesMatchAnIndependentComputation(@TempDir Path tmp) throws Exception {
    SyntheticResult gen = TestSupport.generate(SyntheticConfig.builder(tmp.resolve("logs"))
        .nodes(2).gpusPerNode(2).iterations(60).seed(3).straggler(1, 0.2, 300_000).build());
    List<Rec> recs = new ArrayList<>();
    for (Path f : gen.files()) {
      for (String line : Files.readAllLines(f)) {
        JsonNode n = JSON.readTree(line);
        JsonNode h = n.get("header");
        boolean coll = n.has("coll_perf");
        JsonNode p = coll ? n.get("coll_perf") : n.get("p2p_perf");
        String pre = coll ? "coll" : "p2p";
        recs.add(new Rec(h.get("id").asText(), h.get("rank").asInt(),
            classify(h.get("n_ranks").asInt(), h.get("nnodes").asInt()), pre,
            p.get(pre).asText(), p.get(pre + "_msg_size_bytes").asLong(),
            p.get(pre + "_exec_time_ns").asLong() / 1000.0,
            p.get(pre + "_busbw_gbs").asDouble()));
      }
    }
    assertEquals(gen.records(), recs.size());

    ReportResult r = TestSupport.report(tmp.resolve("out"), tmp.resolve("logs").toString());
    assertEquals(recs.size(), r.data().overview().records());

    Map<String, List<Rec>> groups = new HashMap<>();
    for (Rec x : recs) {
      String key = x.type() + "|" + x.kind() + "|" + x.op() + "|" + Long.highestOneBit(x.size());
      groups.computeIfAbsent(key, k -> new ArrayList<>()).add(x);
    }
    List<ClassSummary> classes = r.data().classes();
    assertEquals(groups.size(), classes.size());
    for (ClassSummary c : classes) {
      List<Rec> g = groups.get(c.commType() + "|" + c.kind() + "|" + c.op() + "|"
          + c.sizeBucketBytes());
      assertNotNull(g, c.toString());
      assertEquals(g.size(), c.records(), c.toString());
      assertEquals(g.stream().map(Rec::comm).distinct().count(), c.communicators());
      double[] exec = g.stream().mapToDouble(Rec::execUs).sorted().toArray();
      double[] bw = g.stream().mapToDouble(Rec::busbw).sorted().toArray();
      assertEquals(quantile(exec, 0.5), c.execP50Us(), 1e-6, c.toString());
      assertEquals(quantile(exec, 0.9), c.execP90Us(), 1e-6);
      assertEquals(quantile(exec, 0.99), c.execP99Us(), 1e-6);
      assertEquals(exec[exec.length - 1], c.execMaxUs(), 1e-6);
      assertEquals(Arrays.stream(exec).average().orElseThrow(), c.execMeanUs(), 1e-6);
      assertEquals(quantile(bw, 0.5), c.busbwP50Gbs(), 1e-9);
      assertEquals(quantile(bw, 0.9), c.busbwP90Gbs(), 1e-9);
      assertEquals(quantile(bw, 0.99), c.busbwP99Gbs(), 1e-9);
      assertEquals(quantile(bw, 0.05), c.busbwP05Gbs(), 1e-9);
      assertEquals(g.stream().mapToLong(Rec::size).sum(), c.totalBytes());
      assertEquals(SizeBucketing.POW2.bucketLabel(c.sizeBucketBytes()), c.sizeBucket());
    }
    Set<String> types = new HashSet<>();
    classes.forEach(c -> types.add(c.commType()));
    assertEquals(Set.of("single-rank", "nvlink-only", "hca-only", "mixed"), types,
        "the training workload exercises every class");

    // Per communicator and per rank: counts and distinct ranks.
    for (CommunicatorSummary cs : r.data().communicators()) {
      List<Rec> g = recs.stream().filter(x -> x.comm().equals(cs.commId())).toList();
      assertEquals(g.size(), cs.records());
      assertEquals(g.stream().map(Rec::rank).distinct().count(), cs.ranksSeen());
      assertEquals(g.stream().filter(x -> x.kind().equals("p2p")).count(), cs.p2p());
    }
    assertEquals(recs.stream().map(x -> x.comm() + "/" + x.rank()).distinct().count(),
        r.data().ranks().size());
    for (RankSummary rs : r.data().ranks()) {
      double[] exec = recs.stream().filter(x -> x.comm().equals(rs.commId())
          && x.rank() == rs.rank()).mapToDouble(Rec::execUs).sorted().toArray();
      assertEquals(exec.length, rs.records());
      assertEquals(quantile(exec, 0.5), rs.execP50Us(), 1e-6);
      assertEquals(quantile(exec, 0.99), rs.execP99Us(), 1e-6);
    }
  }

  @Test
  void exactBucketsGroupByExactSize(@TempDir Path tmp) throws Exception {
    TestSupport.generate(SyntheticConfig.builder(tmp.resolve("logs")).nodes(1).gpusPerNode(2)
        .iterations(20).uint8Probability(0.0).build());
    ReportResult r = TestSupport.report(ReportOptions.builder(tmp.resolve("out"))
        .inputs(tmp.resolve("logs").toString()).progress(false)
        .sizeBucketing(SizeBucketing.EXACT).build());
    for (ClassSummary c : r.data().classes()) {
      assertEquals(c.minSizeBytes(), c.maxSizeBytes(), c.toString());
      assertEquals(c.sizeBucketBytes(), c.minSizeBytes());
    }
  }
}
