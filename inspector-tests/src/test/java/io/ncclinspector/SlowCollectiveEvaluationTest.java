package io.ncclinspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.testsupport.BimodalAllReduce;
import io.ncclinspector.testsupport.TestData;
import io.ncclinspector.testsupport.BimodalAllReduce.Op;
import io.ncclinspector.PlantedAnomalies.Point;
import io.ncclinspector.PlantedAnomalies.Result;
import io.ncclinspector.PlantedAnomalies.ScaleResult;
import io.ncclinspector.internal.SlowCollectiveDetector;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How well slow collectives are found, measured: on the synthetic stand-in for the bimodal trace of
 * issue 14, and on every recorded trace under testdata/traces (a scenario added there is evaluated
 * too), each with anomalies planted at 2, 10 and 100 times its class's p99. Targets: every anomaly
 * of 10x and more reported; at most 1 % of ordinary operations reported. The figures are written
 * to {@code target/slow-collective-evaluation-*.md}.
 */
class SlowCollectiveEvaluationTest {
  private static final double[] SCALES = {2, 10, 100};
  private static final SlowCollectiveDetection UNLIMITED = SlowCollectiveDetection.defaults().withoutRateLimit();

  @TempDir Path dir;

  @Test
  void theBimodalFixtureHasTheDistributionOfTheIssue() {
    for (long seed = 1; seed <= 5; seed++) {
      long[] x = BimodalAllReduce.generate(seed).stream().mapToLong(Op::executionNanos).sorted().toArray();
      assertEquals(2000, x.length);
      long p50 = x[999];
      long p99 = x[1979];
      assertTrue(p50 >= 7_500 && p50 <= 8_500, "p50 " + p50);
      assertTrue(p99 >= 85_000 && p99 <= 100_000, "p99 " + p99);
      assertEquals(573_000, x[1999]);
      long waits = java.util.Arrays.stream(x).filter(v -> v >= 60_000 && v <= 95_000).count();
      assertTrue(waits > 120 && waits < 230, "operations waiting 60-95 us: " + waits);
      assertTrue(x[0] >= 3_000, "min " + x[0]);
    }
  }

  @Test
  void onTheBimodalStreamWaitsAndTailAreQuietAndAnomaliesAreReported() throws IOException {
    int seeds = 20;
    int ordinaryReported = 0;
    int worstRun = 0;
    Map<Double, int[]> recall = new HashMap<>();
    int issueReported = 0;
    int insideReported = 0;
    for (long seed = 1; seed <= seeds; seed++) {
      List<Op> ops = BimodalAllReduce.generate(seed);
      int ordinary = reported(BimodalAllReduce.records(ops)).size();
      assertTrue(ordinary <= 20, "seed " + seed + ": " + ordinary + " of 2000 ordinary operations reported");
      ordinaryReported += ordinary;
      worstRun = Math.max(worstRun, ordinary);
      long p99 = PlantedAnomalies.p99(BimodalAllReduce.records(ops));
      /* The issue's case: six operations at 2 ms. And six 3x slowdowns of the median (inside the
         normal range of the class: not to be reported). */
      Set<Integer> at = positions(seed);
      issueReported += plantedReported(ops, at, 2_000_000);
      insideReported += plantedReported(ops, at, 24_000);
      for (double scale : SCALES) {
        int[] r = recall.computeIfAbsent(scale, k -> new int[2]);
        r[0] += plantedReported(ops, at, Math.round(scale * p99));
        r[1] += at.size();
      }
    }
    assertEquals(6 * seeds, issueReported, "every planted 2 ms operation");
    assertEquals(0, insideReported, "no 3x-median slowdown: those are inside the class's range");
    for (double scale : new double[] {10, 100}) {
      assertEquals(recall.get(scale)[1], recall.get(scale)[0], "recall at " + scale + "x p99");
    }
    StringBuilder md = new StringBuilder();
    md.append("| synthetic bimodal stream (issue 14) | runs | ordinary reported | worst run | 2 ms planted | 3x median"
        + " planted | 2x p99 | 10x p99 | 100x p99 |\n|---|---|---|---|---|---|---|---|---|\n");
    md.append(String.format(Locale.ROOT, "| 2,000 AllReduce 64 KiB, 3-8 / 60-95 us, max 573 us | %d | %d of %d (%.2f %%)"
            + " | %d | %d / %d | %d / %d | %s | %s | %s |%n", seeds, ordinaryReported, seeds * 2000,
        100.0 * ordinaryReported / (seeds * 2000), worstRun, issueReported, 6 * seeds, insideReported, 6 * seeds,
        fraction(recall.get(2.0)), fraction(recall.get(10.0)), fraction(recall.get(100.0))));
    write("synthetic", md.toString());
  }

  @Test
  void theBimodalStreamEndToEndThroughTheNativeCore() throws IOException {
    List<Op> ops = BimodalAllReduce.generate(3);
    Set<Integer> at = positions(3);
    Map<Integer, Op> plant = new HashMap<>();
    for (int i : at) {
      plant.put(i, ops.get(i).waitingFor(2_000_000));
    }
    List<Op> planted = BimodalAllReduce.planted(ops, plant);
    Path trace = BimodalAllReduce.trace(planted, dir.resolve("trace"), 4242);
    ListenedReplay run = ListenedReplay.of(trace, UNLIMITED, dir.resolve("unlimited"));
    assertEquals(2000, run.records().size());
    /* The native core made the very records the fixture describes: execution time, skew, the
       delay from enqueue to GPU start. */
    for (OperationRecord r : run.records()) {
      CollectiveRecord expected = BimodalAllReduce.record((int) r.sequence(), planted.get((int) r.sequence()));
      assertEquals(expected.timing().executionNanos(), r.timing().executionNanos());
      assertEquals(expected.timing().gpuSkewNanos(), r.timing().gpuSkewNanos());
      assertEquals(expected.timing().gpuStartNanos() - expected.timing().startWallNanos(),
          r.timing().gpuStartNanos() - r.timing().startWallNanos());
    }
    Set<Long> reported = run.slow().stream().map(e -> e.record().sequence()).collect(Collectors.toSet());
    for (int i : at) {
      assertTrue(reported.contains((long) i), "planted #" + i + " reported");
    }
    assertTrue(run.slow().size() - at.size() <= 20, "ordinary reported: " + (run.slow().size() - at.size()));
    for (SlowCollectiveEvent e : run.slow()) {
      if (at.contains((int) e.record().sequence())) {
        assertEquals(SlowCollectiveEvent.Kind.WAITING_FOR_PEERS, e.kind(), e.describe());
      }
    }
    assertEquals(reported, reported(run.records()).stream().map(OperationRecord::sequence).collect(Collectors.toSet()),
        "the listener heard what the detector finds in those records");

    ListenedReplay limited = ListenedReplay.of(trace,
        SlowCollectiveDetection.defaults().withRateLimit(3, Duration.ofHours(1)), dir.resolve("limited"));
    assertEquals(3, limited.slow().size(), "three callbacks in the interval");
    assertEquals(1, limited.summaries().size(), "the rest summed up when the inspector closed");
    SlowCollectiveSummary s = limited.summaries().get(0);
    assertEquals(run.slow().size() - 3, s.suppressed());
    assertEquals(2_000_000, s.worst().record().timing().executionNanos());
    assertTrue(s.describe().startsWith((run.slow().size() - 3) + " more slow AllReduce RING/SIMPLE 64KiB"), s.describe());
  }

  @Test
  void onEveryRecordedTraceAnomaliesAreReportedAndOrdinaryOperationsAreNot() throws IOException {
    List<Result> results = new ArrayList<>();
    for (String scenario : TestData.scenarios()) {
      for (Path trace : TestData.traceFiles(scenario)) {
        results.add(PlantedAnomalies.evaluate(trace, UNLIMITED, SCALES, dir.resolve(scenario + "-" + trace.getFileName())));
      }
    }
    write("traces", table(results));
    Map<Point, Integer> plantedAt10 = new EnumMap<>(Point.class);
    for (Result r : results) {
      String name = TestData.traces().relativize(r.trace()).toString();
      /* A recording whose own operations jump in latency (latency-jumps.txt says how, with CUPTI's
         word for it) has real slow collectives: reports there are not false alarms. */
      boolean realJumps = Files.exists(r.trace().getParent().resolveSibling("latency-jumps.txt"));
      assertTrue(realJumps || r.ordinaryRate() <= 0.01, name + ": " + r.ordinaryReported() + " of " + r.judged()
          + " reported");
      for (ScaleResult s : r.scales()) {
        assertTrue(realJumps || s.ordinaryReported() <= 0.01 * s.ordinary(), name + " planted x" + s.scale() + ": "
            + s.ordinaryReported() + " ordinary operations reported");
        if (s.scale() >= 10) {
          for (Point p : new Point[] {Point.WARM_UP, Point.SIZE_CHANGE, Point.PROTOCOL_CHANGE}) {
            assertEquals(s.planted().getOrDefault(p, 0), s.reported().getOrDefault(p, 0),
                name + " x" + s.scale() + " " + p + " missed " + s.missed());
          }
        }
        if (s.scale() == 10) {
          s.planted().forEach((p, n) -> plantedAt10.merge(p, n, Integer::sum));
        }
      }
    }
    for (Point p : Point.values()) {
      assertTrue(plantedAt10.getOrDefault(p, 0) > 0, "the traces gave no " + p + " point to plant at");
    }
  }

  /** Six positions: the first operation judged after warm-up, five others. */
  private static Set<Integer> positions(long seed) {
    Set<Integer> at = new HashSet<>();
    at.add(SlowCollectiveDetection.defaults().warmupSamples());
    Random rnd = new Random(seed * 31);
    while (at.size() < 6) {
      at.add(10 + rnd.nextInt(1990));
    }
    return at;
  }

  private static int plantedReported(List<Op> ops, Set<Integer> at, long execNanos) {
    Map<Integer, Op> plant = new HashMap<>();
    for (int i : at) {
      plant.put(i, ops.get(i).waitingFor(execNanos));
    }
    int n = 0;
    for (OperationRecord r : reported(BimodalAllReduce.records(BimodalAllReduce.planted(ops, plant)))) {
      if (at.contains((int) r.sequence())) {
        n++;
      }
    }
    return n;
  }

  private static List<OperationRecord> reported(List<? extends OperationRecord> records) {
    SlowCollectiveDetector d = new SlowCollectiveDetector(UNLIMITED);
    List<OperationRecord> out = new ArrayList<>();
    for (OperationRecord r : records) {
      if (d.observe(r) != null) {
        out.add(r);
      }
    }
    return out;
  }

  private static String table(List<Result> results) {
    StringBuilder md = new StringBuilder("| trace | judged | ordinary reported | planted at | 2x p99 | 10x p99 | 100x p99"
        + " | first op after a change, 10x / 100x | kind of the planted, 10x |\n|---|---|---|---|---|---|---|---|---|\n");
    for (Result r : results) {
      ScaleResult x2 = r.scales().get(0);
      ScaleResult x10 = r.scales().get(1);
      ScaleResult x100 = r.scales().get(2);
      md.append(String.format(Locale.ROOT, "| %s | %d | %d (%.1f %%) | %s | %s | %s | %s | %s / %s | %s |%n",
          TestData.traces().relativize(r.trace()), r.judged(), r.ordinaryReported(), 100 * r.ordinaryRate(),
          points(x10), judgedRecall(x2), judgedRecall(x10), judgedRecall(x100),
          pointRecall(x10, Point.FIRST_AFTER_CHANGE), pointRecall(x100, Point.FIRST_AFTER_CHANGE), kinds(x10)));
    }
    return md.toString();
  }

  private static String points(ScaleResult s) {
    List<String> parts = new ArrayList<>();
    for (Point p : Point.values()) {
      if (p != Point.FIRST_AFTER_CHANGE && s.planted().containsKey(p)) {
        parts.add(s.planted().get(p) + " " + p.name().toLowerCase(Locale.ROOT).replace('_', ' '));
      }
    }
    return parts.isEmpty() ? "-" : String.join(", ", parts);
  }

  private static String judgedRecall(ScaleResult s) {
    int planted = 0;
    int reported = 0;
    for (Point p : new Point[] {Point.WARM_UP, Point.SIZE_CHANGE, Point.PROTOCOL_CHANGE}) {
      planted += s.planted().getOrDefault(p, 0);
      reported += s.reported().getOrDefault(p, 0);
    }
    return planted == 0 ? "-" : reported + " / " + planted;
  }

  private static String pointRecall(ScaleResult s, Point p) {
    return s.planted().containsKey(p) ? s.reported().getOrDefault(p, 0) + "/" + s.planted().get(p) : "-";
  }

  private static String kinds(ScaleResult s) {
    return s.plantedKinds().isEmpty() ? "-" : s.plantedKinds().entrySet().stream()
        .map(e -> e.getValue() + " " + e.getKey().label()).collect(Collectors.joining(", "));
  }

  private static String fraction(int[] r) {
    return r[0] + " / " + r[1];
  }

  private static void write(String name, String markdown) throws IOException {
    Path out = Path.of("target", "slow-collective-evaluation-" + name + ".md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, markdown, StandardCharsets.UTF_8);
  }
}
