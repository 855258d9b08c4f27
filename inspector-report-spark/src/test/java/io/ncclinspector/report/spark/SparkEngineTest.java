package io.ncclinspector.report.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ncclinspector.report.Progress;
import io.ncclinspector.report.ReportOptions;
import io.ncclinspector.report.ReportResult;
import io.ncclinspector.report.ReportRunner;
import io.ncclinspector.report.analysis.ClassSummary;
import io.ncclinspector.report.analysis.CollectiveSkew;
import io.ncclinspector.report.analysis.CommunicatorSkew;
import io.ncclinspector.report.analysis.CommunicatorSummary;
import io.ncclinspector.report.analysis.NetWaitedFor;
import io.ncclinspector.report.analysis.NetworkResult;
import io.ncclinspector.report.analysis.P2pCompletionResult;
import io.ncclinspector.report.analysis.ProcessLateness;
import io.ncclinspector.report.analysis.RankLateness;
import io.ncclinspector.report.analysis.RankSummary;
import io.ncclinspector.report.analysis.StragglerResult;
import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.engine.duckdb.EngineSettings;
import io.ncclinspector.report.ingest.FileImport;
import io.ncclinspector.report.ingest.JsonLayout;
import io.ncclinspector.report.ingest.RecordSchema;
import io.ncclinspector.report.output.OutputFiles;
import io.ncclinspector.report.output.ReportData;
import io.ncclinspector.report.synthetic.SyntheticConfig;
import io.ncclinspector.report.synthetic.SyntheticGenerator;
import io.ncclinspector.report.synthetic.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Spark engine, in local mode, against the DuckDB engine on the same input: the same counts,
 * sums, straggler verdicts and outputs; percentiles equal when Spark computes them exactly, and
 * within the documented error of {@code percentile_approx} when it approximates.
 *
 * <p>One Spark session serves every test (its start-up costs seconds); the report finds it and
 * uses it, as it would inside a Spark application.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SparkEngineTest {
  /** Percentile fields of the result records: compared with the data, not with DuckDB. */
  static final Set<String> CLASS_PERCENTILES = Set.of("execP50Us", "execP90Us", "execP99Us",
      "busbwP05Gbs", "busbwP25Gbs", "busbwP50Gbs", "busbwP75Gbs", "busbwP90Gbs", "busbwP95Gbs",
      "busbwP99Gbs");
  static final Set<String> COMM_PERCENTILES = Set.of("execP50Us", "execP99Us", "busbwP50Gbs",
      "skewP50Us", "skewP99Us");
  static final Set<String> RANK_PERCENTILES = Set.of("execP50Us", "execP90Us", "execP99Us",
      "busbwP50Gbs");

  private SparkSession spark;

  @BeforeAll
  void startSpark() {
    spark = SparkSession.builder().appName("inspector-report-spark tests").master("local[2]")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "localhost")
        .getOrCreate();
  }

  @AfterAll
  void stopSpark() {
    spark.stop();
  }

  static ReportResult report(ReportOptions.Builder b) throws Exception {
    return new ReportRunner(b.threads(Math.min(2, ReportOptions.maxThreads())).progress(false).build(), Progress.silent()).run();
  }

  static ReportOptions.Builder options(Path out, String engine, String... inputs) {
    return ReportOptions.builder(out).inputs(inputs).engine(engine);
  }

  private static long generate(SyntheticConfig config) throws Exception {
    return SyntheticGenerator.generate(config, n -> { }).records();
  }

  @Test
  void withExactPercentilesTheReportIsTheSameAsDuckDbs(@TempDir Path tmp) throws Exception {
    // Every communication class, a late rank and a node whose GPU clock runs ahead.
    generate(SyntheticConfig.builder(tmp.resolve("logs")).nodes(2).gpusPerNode(2)
        .iterations(120).seed(5).straggler(1, 0.3, 400_000)
        .nodeClockOffsetsNanos(List.of(0L, 250_000L)).build());
    String logs = tmp.resolve("logs").toString();
    ReportResult duck = report(options(tmp.resolve("duck"), "duckdb", logs));
    ReportResult sparkRun = report(options(tmp.resolve("spark"), "spark", logs)
        .percentileAccuracy(0));
    ReportData d = duck.data();
    ReportData s = sparkRun.data();

    assertEquals(d.overview(), s.overview());
    Same.lists("class", d.classes(), s.classes(), SparkEngineTest::classKey, Set.of());
    Same.lists("communicator", d.communicators(), s.communicators(),
        CommunicatorSummary::commId, Set.of());
    Same.lists("rank", d.ranks(), s.ranks(), r -> r.commId() + "/" + r.rank(), Set.of());
    assertEquals(d.execHistograms(), s.execHistograms());
    sameStragglers(d.stragglers(), s.stragglers(), Set.of());
    assertEquals(d.stragglers().delayHistograms(), s.stragglers().delayHistograms());
    assertFalse(d.stragglers().suspects().isEmpty(), "the late rank is found");
    sameImport(d, s);
    assertTrue(d.p2pCompletion().measured() > 0, "pipeline sends and receives paired");
    sameP2p(d.p2pCompletion(), s.p2pCompletion(), Set.of());
    assertFalse(s.network().found(), "synthetic logs have no network breakdown");
    assertEquals(d.network(), s.network());

    assertEquals("DuckDB", d.engine().name());
    assertEquals("Apache Spark", s.engine().name());
    assertEquals(spark.version(), s.engine().version());
    assertTrue(s.engine().percentiles().startsWith("exact"), s.engine().percentiles());
    JsonNode manifest = new ObjectMapper().readTree(sparkRun.outputDirectory()
        .resolve(OutputFiles.MANIFEST).toFile());
    assertEquals("Apache Spark", manifest.get("engine").get("name").asText());
    String html = Files.readString(sparkRun.html());
    assertTrue(html.contains("Apache Spark " + spark.version()));

    // The exports hold the same rows: the same count per file and the same columns.
    try (ExportedValues v = new ExportedValues(tmp.resolve("scratch"))) {
      Map<String, double[]> a = v.sorted(ExportedValues.parquet(duck.recordsDirectory()
          .resolve("*.parquet")), "source_file", "exec_us", "true");
      Map<String, double[]> b = v.sorted(ExportedValues.parquet(sparkRun.recordsDirectory()
          .resolve("*.parquet")), "source_file", "exec_us", "true");
      assertEquals(a.keySet(), b.keySet());
      a.forEach((file, values) -> assertTrue(java.util.Arrays.equals(values, b.get(file)), file));
      Map<String, double[]> ca = v.sorted(ExportedValues.parquet(duck.outputDirectory()
          .resolve(OutputFiles.COLLECTIVES)), "comm_id || op || sn", "delay_us", "true");
      Map<String, double[]> cb = v.sorted(ExportedValues.parquet(sparkRun.outputDirectory()
          .resolve(OutputFiles.COLLECTIVES).resolve("*.parquet")), "comm_id || op || sn",
          "delay_us", "true");
      assertEquals(ca.size(), cb.size());
      ca.forEach((k, x) -> assertTrue(java.util.Arrays.equals(x, cb.get(k)), k));
    }
  }

  private static void sameP2p(P2pCompletionResult d, P2pCompletionResult s, Set<String> skip) {
    assertEquals(List.of(d.receives(), d.measured(), d.noPeerRecord(), d.sizeMismatch(),
        d.untimed(), d.noClockOffset()), List.of(s.receives(), s.measured(), s.noPeerRecord(),
        s.sizeMismatch(), s.untimed(), s.noClockOffset()));
    Same.lists("p2p", d.transfers(), s.transfers(), t -> t.commId() + "/" + t.rank() + "/"
        + t.peer() + "/" + t.msgSizeBytes(), skip);
  }

  private static String classKey(ClassSummary c) {
    return c.commType() + "/" + c.kind() + "/" + c.op() + "/" + c.sizeBucketBytes();
  }

  private static void sameStragglers(StragglerResult d, StragglerResult s, Set<String> skip) {
    assertEquals(d.alignedCollectives(), s.alignedCollectives());
    assertEquals(d.lateCollectives(), s.lateCollectives());
    assertEquals(d.incompleteCollectives(), s.incompleteCollectives());
    assertEquals(d.duplicateRecords(), s.duplicateRecords());
    assertEquals(d.notes(), s.notes());
    Same.lists("rank lateness", d.ranks(), s.ranks(), r -> r.commId() + "/" + r.rank(),
        skip.contains("delayP50Us") ? Set.of("delayP50Us") : Set.of());
    Same.lists("process lateness", d.processes(), s.processes(),
        p -> p.hostname() + "/" + p.pid(), Set.of());
    Same.lists("communicator skew", d.communicators(), s.communicators(),
        CommunicatorSkew::commId, skip.contains("skew")
            ? Set.of("skewP50Us", "skewP99Us", "delayP99Us") : Set.of());
    Same.lists("worst", d.worst(), s.worst(), c -> c.commId() + "/" + c.op() + "/" + c.sn(),
        Set.of());
    assertEquals(d.worst().stream().map(SparkEngineTest::worstKey).toList(),
        s.worst().stream().map(SparkEngineTest::worstKey).toList(), "the same order");
  }

  private static String worstKey(CollectiveSkew c) {
    return c.commId() + "/" + c.op() + "/" + c.sn();
  }

  private static void sameImport(ReportData d, ReportData s) {
    assertEquals(d.imported().records(), s.imported().records());
    assertEquals(d.imported().rejected(), s.imported().rejected());
    assertEquals(d.imported().rejectedLines(), s.imported().rejectedLines());
    assertEquals(d.skipped(), s.skipped());
    assertEquals(d.imported().files().size(), s.imported().files().size());
    for (int i = 0; i < d.imported().files().size(); i++) {
      FileImport a = d.imported().files().get(i);
      FileImport b = s.imported().files().get(i);
      assertEquals(a.file(), b.file());
      assertEquals(a.records(), b.records(), a.file());
      assertEquals(a.rejected(), b.rejected(), a.file());
      assertEquals(a.rejectedListed(), b.rejectedListed(), a.file());
      assertEquals(a.damage(), b.damage(), a.file());
      assertEquals(a.corrupt(), b.corrupt(), a.file());
      assertEquals(a.compression(), b.compression(), a.file());
    }
  }

  @Test
  void approximatePercentilesStayWithinTheirDocumentedError(@TempDir Path tmp) throws Exception {
    // 8 ranks, 1500 collectives each: groups large enough for a coarse approximation (accuracy
    // 100: within 1 % of the ranks) to differ from the exact values.
    generate(SyntheticConfig.builder(tmp.resolve("logs")).nodes(2).gpusPerNode(4)
        .workload(Workload.WORLD_ALLREDUCE).iterations(1500).seed(9)
        .straggler(6, 0.2, 1_000_000).build());
    String logs = tmp.resolve("logs").toString();
    int accuracy = 100;
    ReportResult duck = report(options(tmp.resolve("duck"), "duckdb", logs));
    ReportResult sparkRun = report(options(tmp.resolve("spark"), "spark", logs)
        .percentileAccuracy(accuracy));
    ReportData d = duck.data();
    ReportData s = sparkRun.data();
    assertEquals(d.overview(), s.overview());
    Same.lists("class", d.classes(), s.classes(), SparkEngineTest::classKey, CLASS_PERCENTILES);
    Same.lists("communicator", d.communicators(), s.communicators(),
        CommunicatorSummary::commId, COMM_PERCENTILES);
    Same.lists("rank", d.ranks(), s.ranks(), r -> r.commId() + "/" + r.rank(), RANK_PERCENTILES);
    sameStragglers(d.stragglers(), s.stragglers(), Set.of("delayP50Us", "skew"));
    assertEquals(List.of(6), s.stragglers().suspects().stream().map(RankLateness::rank).toList());
    assertTrue(s.engine().percentiles().contains("accuracy 100"), s.engine().percentiles());

    double maxOff = 0;
    try (ExportedValues v = new ExportedValues(tmp.resolve("scratch"))) {
      String records = ExportedValues.parquet(duck.recordsDirectory().resolve("*.parquet"));
      String used = "excluded_reason IS NULL";
      Map<String, double[]> exec = v.sorted(records, "comm_id || '/' || rank", "exec_us", used);
      Map<String, double[]> bw = v.sorted(records, "comm_id || '/' || rank", "busbw_gbs", used);
      for (RankSummary r : s.ranks()) {
        String k = r.commId() + "/" + r.rank();
        maxOff = Math.max(maxOff, ExportedValues.check(k + " exec p50", exec.get(k), 0.5,
            r.execP50Us(), accuracy));
        ExportedValues.check(k + " exec p90", exec.get(k), 0.9, r.execP90Us(), accuracy);
        ExportedValues.check(k + " exec p99", exec.get(k), 0.99, r.execP99Us(), accuracy);
        ExportedValues.check(k + " busbw p50", bw.get(k), 0.5, r.busbwP50Gbs(), accuracy);
      }
      Map<String, double[]> commExec = v.sorted(records, "comm_id", "exec_us", used);
      for (CommunicatorSummary c : s.communicators()) {
        ExportedValues.check(c.commId() + " exec p99", commExec.get(c.commId()), 0.99,
            c.execP99Us(), accuracy);
      }
      Map<String, double[]> classExec = v.sorted(records, "comm_type || '/' || kind || '/' || op"
          + " || '/' || msg_size_bytes", "exec_us", used);
      for (ClassSummary c : s.classes()) {
        ExportedValues.check(classKey(c) + " exec p50", classExec.get(classKey(c)), 0.5,
            c.execP50Us(), accuracy);
      }
      String collectives = ExportedValues.parquet(duck.outputDirectory()
          .resolve(OutputFiles.COLLECTIVES));
      Map<String, double[]> skew = v.sorted(collectives, "comm_id", "skew_us", "true");
      Map<String, double[]> delay = v.sorted(collectives, "comm_id || '/' || last_rank",
          "delay_us", "delay_us >= 20");
      for (CommunicatorSkew c : s.stragglers().communicators()) {
        ExportedValues.check(c.commId() + " skew p99", skew.get(c.commId()), 0.99, c.skewP99Us(),
            accuracy);
      }
      for (RankLateness r : s.stragglers().ranks()) {
        if (r.lateCount() > 0) {
          ExportedValues.check(r.commId() + "/" + r.rank() + " delay p50",
              delay.get(r.commId() + "/" + r.rank()), 0.5, r.delayP50Us(), accuracy);
        }
      }
    }
    assertTrue(maxOff >= 1, "the approximation shows (else this test checks nothing)");
  }

  @Test
  void recordedLogsOfBothProducersImportTheSame(@TempDir Path tmp) throws Exception {
    String traces = Path.of(System.getProperty("nccl.inspector.testdata.dir"), "traces")
        .toString();
    String h3 = Path.of("../inspector-report/src/test/resources/replayed/h3_mix").toString();
    String n2 = Path.of("../inspector-report/src/test/resources/replayed/n2_truth").toString();
    ReportData d = report(options(tmp.resolve("duck"), "duckdb", traces, h3, n2)).data();
    ReportData s = report(options(tmp.resolve("spark"), "spark", traces, h3, n2)).data();
    assertEquals(d.overview(), s.overview());
    assertTrue(d.overview().excluded().get("invalid_size") > 0, "the reference's uint8 sizes");
    assertEquals(2, d.overview().producers().size());
    assertTrue(d.skipped().stream().anyMatch(x -> x.reason().startsWith("raw event trace")));
    sameImport(d, s);
    Same.lists("class", d.classes(), s.classes(), SparkEngineTest::classKey, CLASS_PERCENTILES);
    Same.lists("communicator", d.communicators(), s.communicators(),
        CommunicatorSummary::commId, COMM_PERCENTILES);
    sameStragglers(d.stragglers(), s.stragglers(), Set.of("delayP50Us", "skew"));
    assertTrue(d.p2pCompletion().measured() >= 132, "n2_truth: both ranks' receives");
    sameP2p(d.p2pCompletion(), s.p2pCompletion(), Set.of("reportedP50Us", "completionP50Us",
        "completionP99Us", "extensionP50Us"));
  }

  /**
   * The network section on the planted two-rank runs (replayed logs of the report's tests, one
   * communicator each) and the NVLink run h3_mix, read together: the same figures and verdicts as
   * DuckDB's, the same attributed waits, and rank 1 named as the peer rank 0 waited for at the
   * planted collectives, arrived late in s28_late and its own GPU late in s28_gpuslow; nothing
   * for the NVLink communicator.
   */
  @Test
  void theNetworkSectionIsTheSameAsDuckDbs(@TempDir Path tmp) throws Exception {
    Path fixtures = Path.of("../inspector-report/src/test/resources/replayed");
    String late = "0xddb9dfd71ebe7b47";
    String gpuSlow = "0xb3dfcc3bdd9018bb";
    String[] logs = {fixtures.resolve("s28_late").toString(),
        fixtures.resolve("s28_gpuslow").toString(), fixtures.resolve("h3_mix").toString()};
    ReportResult duck = report(options(tmp.resolve("duck"), "duckdb", logs));
    ReportResult sparkRun = report(options(tmp.resolve("spark"), "spark", logs)
        .percentileAccuracy(0));
    NetworkResult d = duck.data().network();
    NetworkResult s = sparkRun.data().network();
    assertEquals(List.of(d.records(), d.withBreakdown(), d.implausible(), d.withProxyDetail(),
        d.waits(), d.notableWaits()), List.of(s.records(), s.withBreakdown(), s.implausible(),
        s.withProxyDetail(), s.waits(), s.notableWaits()));
    assertEquals(List.of(4 * 202L + 3 * 262L, 4 * 202L, 2 * 202L), List.of(s.records(),
        s.withBreakdown(), s.withProxyDetail()), "s28_late is verbose, h3_mix has none");
    assertEquals(d.notes(), s.notes());
    Same.lists("network rank", d.ranks(), s.ranks(), r -> r.commId() + "/" + r.rank(), Set.of());
    Same.lists("network link", d.links(), s.links(), l -> l.commId() + "/" + l.rank() + "/"
        + l.peer(), Set.of());
    Same.lists("waited for", d.waitedFor(), s.waitedFor(), w -> w.commId() + "/" + w.rank(),
        Set.of());
    assertEquals(Set.of(late, gpuSlow), s.links().stream().map(l -> l.commId())
        .collect(java.util.stream.Collectors.toSet()), "no NVLink communicator");
    Map<String, String> verdicts = Map.of(late, "arrived_late", gpuSlow, "own_gpu_late");
    try (ExportedValues v = new ExportedValues(tmp.resolve("scratch"))) {
      for (String comm : List.of(late, gpuSlow)) {
        NetWaitedFor rank1 = s.waitedFor().stream()
            .filter(w -> w.commId().equals(comm) && w.rank() == 1).findFirst().orElseThrow();
        assertEquals(verdicts.get(comm), rank1.verdict(), comm);
        assertTrue(rank1.notableWaits() >= 20, rank1.toString());
        assertEquals(comm.equals(late), s.links().stream().filter(l -> l.commId().equals(comm))
            .allMatch(l -> l.bytesFromPeer() != null), comm + ": per-peer bytes when verbose");
        String planted = "comm_id = '" + comm + "' AND rank = 0 AND sn % 10 = 6"
            + " AND sn BETWEEN 6 AND 196 AND peer = 1 AND notable";
        Map<String, double[]> a = v.sorted(ExportedValues.parquet(duck.outputDirectory()
            .resolve(OutputFiles.NETWORK_WAITS)), "cause", "sn", planted);
        Map<String, double[]> b = v.sorted(ExportedValues.parquet(sparkRun.outputDirectory()
            .resolve(OutputFiles.NETWORK_WAITS).resolve("*.parquet")), "cause", "sn", planted);
        assertEquals(a.keySet(), b.keySet(), comm);
        a.forEach((cause, sns) -> assertTrue(java.util.Arrays.equals(sns, b.get(cause)), cause));
        assertTrue(b.get(verdicts.get(comm)).length >= 18, comm + ": " + b.keySet());
      }
    }
  }

  @Test
  void anEarlierExportIsReadBackAsDuckDbReadsIt(@TempDir Path tmp) throws Exception {
    Path logs = tmp.resolve("logs");
    generate(SyntheticConfig.builder(logs).nodes(1).gpusPerNode(2).iterations(40).seed(2)
        .build());
    ReportResult first = report(options(tmp.resolve("first"), "duckdb", logs.toString()));
    Path more = tmp.resolve("more");
    long added = generate(SyntheticConfig.builder(more).nodes(1).gpusPerNode(2).iterations(30)
        .seed(3).build());
    // The first report's directory: its records/ are read, collectives.parquet passed over.
    String[] inputs = {first.outputDirectory().toString(), more.toString()};
    ReportData d = report(options(tmp.resolve("duck"), "duckdb", inputs)).data();
    ReportData s = report(options(tmp.resolve("spark"), "spark", inputs).percentileAccuracy(0))
        .data();
    assertEquals(first.data().overview().records() + added, d.overview().records());
    assertEquals(d.overview(), s.overview());
    assertEquals(d.skipped(), s.skipped());
    assertTrue(d.skipped().stream().anyMatch(x -> x.displayName().endsWith(
        OutputFiles.COLLECTIVES)), d.skipped().toString());
    sameImport(d, s);
    Same.lists("class", d.classes(), s.classes(), SparkEngineTest::classKey, Set.of());
  }

  @Test
  void theCoreExportIsDuckDbsAndReadsBack(@TempDir Path tmp) throws Exception {
    Path logs = tmp.resolve("logs");
    generate(SyntheticConfig.builder(logs).nodes(1).gpusPerNode(2).iterations(40).seed(4)
        .build());
    Path more = tmp.resolve("more");
    generate(SyntheticConfig.builder(more).nodes(1).gpusPerNode(2).iterations(30).seed(5)
        .build());
    // An export of all columns read back into a core report, with new logs, by either engine.
    ReportResult first = report(options(tmp.resolve("first"), "duckdb", logs.toString()));
    String[] inputs = {first.recordsDirectory().toString(), more.toString()};
    RecordSchema.ColumnSet core = RecordSchema.ColumnSet.CORE;
    ReportResult duck = report(options(tmp.resolve("duck"), "duckdb", inputs)
        .recordColumns(core));
    ReportResult spark = report(options(tmp.resolve("spark"), "spark", inputs)
        .recordColumns(core).percentileAccuracy(0));
    assertEquals(duck.data().overview(), spark.data().overview());
    Same.lists("class", duck.data().classes(), spark.data().classes(), SparkEngineTest::classKey,
        Set.of());
    List<String> names = core.columns().stream().map(RecordSchema.Column::name).toList();
    try (DuckDbEngine e = DuckDbEngine.open(new EngineSettings(1, null, tmp.resolve("reader")))) {
      for (ReportResult r : List.of(duck, spark)) {
        assertEquals(names, e.query("DESCRIBE SELECT * FROM " + ExportedValues.parquet(
            r.recordsDirectory().resolve("*.parquet")), q -> q.getString("column_name")),
            r.outputDirectory().toString());
      }
    }
  }

  @Test
  void damagedInputIsHandledAsDuckDbHandlesIt(@TempDir Path tmp) throws Exception {
    Path gen = tmp.resolve("gen");
    generate(SyntheticConfig.builder(gen).nodes(1).gpusPerNode(2)
        .workload(Workload.WORLD_ALLREDUCE).iterations(40).build());
    List<String> source = Files.readAllLines(gen.resolve("node00-pid10000.log"));
    Path logs = Files.createDirectories(tmp.resolve("logs"));
    List<String> lines = new java.util.ArrayList<>(source.subList(0, 10));
    lines.set(2, "garbage {{{");
    lines.set(5, lines.get(5).replace("\"rank\":0", "\"rank\":\"zero\""));
    lines.add(4, "");
    String text = String.join("\n", lines) + "\n";
    Files.writeString(logs.resolve("plain.log"), text + source.get(10).substring(0, 150));
    gzip(logs.resolve("packed.log.gz"), text.getBytes());
    StringBuilder many = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      source.forEach(l -> many.append(l).append('\n'));
    }
    Path whole = tmp.resolve("whole.gz");
    gzip(whole, many.toString().getBytes());
    byte[] gz = Files.readAllBytes(whole);
    Files.write(logs.resolve("cut.log.gz"), java.util.Arrays.copyOf(gz, gz.length * 2 / 3));
    Files.write(logs.resolve("broken.log.gz"), new byte[] {0x1f, (byte) 0x8b, 8, 0, 'j', 'u',
        'n', 'k', 'j', 'u', 'n', 'k', 'j', 'u', 'n', 'k'});
    Files.write(logs.resolve("weird [1] *.log"), (String.join("\n", source.subList(0, 5))
        + "\n").getBytes());
    Files.writeString(logs.resolve("not-records.log"), "not json\n{\"also\":\"not a record\"}\n");
    // Issue 21: fields of the wrong JSON type (rejected), values out of range (excluded).
    List<String> hostile = new java.util.ArrayList<>(source.subList(10, 20));
    String[][] edits = {
        {"coll_busbw_gbs", "NaN"}, {"coll_exec_time_us", "true"}, {"rank", "\"0\""},
        {"rank", "-1"}, {"coll_exec_time_ns", "1000000000000000"}, {"coll_algobw_gbs", "1e308"},
        {"coll_gpu_start_ns", Long.toString(Long.MAX_VALUE)}};
    for (int i = 0; i < edits.length; i++) {
      hostile.set(i, hostile.get(i).replaceFirst("\"" + edits[i][0] + "\":[^,}]*",
          "\"" + edits[i][0] + "\":" + edits[i][1]));
    }
    Files.write(logs.resolve("hostile.log"), hostile);
    // A gzip file whose second member does not start with a gzip header.
    Path first = tmp.resolve("first.gz");
    Path second = tmp.resolve("second.gz");
    gzip(first, (String.join("\n", source.subList(0, 15)) + "\n").getBytes());
    gzip(second, (String.join("\n", source.subList(15, 40)) + "\n").getBytes());
    byte[] member2 = Files.readAllBytes(second);
    member2[0] = 0;
    Files.write(logs.resolve("members.log.gz"), Files.readAllBytes(first));
    Files.write(logs.resolve("members.log.gz"), member2, java.nio.file.StandardOpenOption.APPEND);

    ReportData d = report(options(tmp.resolve("duck"), "duckdb", logs.toString())).data();
    ReportData s = report(options(tmp.resolve("spark"), "spark", logs.toString())).data();
    sameImport(d, s);
    assertEquals(d.overview(), s.overview());
    FileImport cut = s.imported().files().stream().filter(f -> f.file().endsWith("cut.log.gz"))
        .findFirst().orElseThrow();
    assertTrue(cut.damage().startsWith("gzip stream ends early"), cut.damage());
    assertTrue(cut.records() > 100);
    FileImport broken = s.imported().files().stream()
        .filter(f -> f.file().endsWith("broken.log.gz")).findFirst().orElseThrow();
    assertTrue(broken.damage().startsWith("gzip data corrupt"), broken.damage());
    assertFalse(broken.salvaged(), "Spark reads every file with the line reader anyway");
    assertTrue(s.imported().notices().isEmpty(), s.imported().notices().toString());
    assertEquals(11, d.imported().rejectedLines().size());
    assertEquals(java.util.Map.of("invalid_identity", 1L, "invalid_time", 2L,
        "invalid_bandwidth", 1L), java.util.Map.of("invalid_identity",
            s.overview().excluded().get("invalid_identity"), "invalid_time",
            s.overview().excluded().get("invalid_time"), "invalid_bandwidth",
            s.overview().excluded().get("invalid_bandwidth")));
    FileImport members = s.imported().files().stream()
        .filter(f -> f.file().endsWith("members.log.gz")).findFirst().orElseThrow();
    assertEquals(15, members.records());
    assertTrue(members.corrupt() && members.damage().startsWith("gzip data corrupt after line 15"),
        members.damage());
    assertNull(s.imported().files().stream().filter(f -> f.file().endsWith("*.log"))
        .findFirst().orElseThrow().damage());
  }

  @Test
  void insideASparkApplicationTheReportUsesItsSessionAndLeavesItRunning(@TempDir Path tmp)
      throws Exception {
    Path logs = tmp.resolve("logs");
    long records = generate(SyntheticConfig.builder(logs).nodes(1).gpusPerNode(2)
        .iterations(20).seed(4).build());
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    // The entry point spark-submit calls, as a Spark application would call it.
    int status = SparkReport.run(new java.io.PrintStream(out, true),
        new java.io.PrintStream(err, true), logs.toString(), "--out", tmp.resolve("out")
            .toString(), "-q");
    assertEquals(0, status, err.toString());
    assertTrue(out.toString().startsWith(String.format(java.util.Locale.ROOT, "%,d records",
        records)), out.toString());
    JsonNode engine = new ObjectMapper().readTree(tmp.resolve("out").resolve(OutputFiles.MANIFEST)
        .toFile()).get("engine");
    List<String> settings = new java.util.ArrayList<>();
    engine.get("settings").forEach(n -> settings.add(n.asText()));
    // The application's session with its settings (2 shuffle partitions, not local mode's 8).
    assertTrue(settings.containsAll(List.of("master local[2]", "session existing",
        "spark.sql.shuffle.partitions 2")), settings.toString());
    assertFalse(spark.sparkContext().isStopped(), "the application's session is left running");
    assertEquals(SparkSession.getActiveSession().get(), spark);
    assertEquals(3L, spark.range(3).count());

    // A report that cannot be made returns its status: the application is not ended.
    err.reset();
    assertEquals(1, SparkReport.run(new java.io.PrintStream(out, true),
        new java.io.PrintStream(err, true), Files.createDirectories(tmp.resolve("empty"))
            .toString(), "--out", tmp.resolve("out2").toString(), "-q"));
    assertTrue(err.toString().contains("no Inspector logs"), err.toString());
    assertFalse(spark.sparkContext().isStopped());
  }

  @Test
  void theDialectsComputeTheSameValues(@TempDir Path tmp) throws Exception {
    SparkSqlEngine sparkSql = new SparkSqlEngine(spark, new SparkDialect(0));
    try (DuckDbEngine duck = DuckDbEngine.open(new EngineSettings(1, null, tmp))) {
      List<io.ncclinspector.report.engine.SqlEngine> engines = List.of(duck, sparkSql);
      // Power-of-two buckets at every boundary up to the largest plausible size.
      for (io.ncclinspector.report.engine.SqlEngine e : engines) {
        String sizes = "SELECT CAST(" + e.dialect().powerOfTwo("k") + " + delta AS BIGINT) AS x"
            + " FROM range(1, 51) AS t(k) CROSS JOIN (SELECT -1 AS delta UNION ALL SELECT 0"
            + " UNION ALL SELECT 1) d UNION ALL SELECT CAST(0 AS BIGINT)";
        List<long[]> rows = e.query("SELECT x, " + io.ncclinspector.report.analysis.SizeBucketing
            .POW2.sql("x", e.dialect()) + " AS b FROM (" + sizes + ") s",
            r -> new long[] {r.getLong(1), r.getLong(2)});
        assertEquals(151, rows.size());
        for (long[] r : rows) {
          assertEquals(r[0] < 1 ? 0 : Long.highestOneBit(r[0]), r[1], e.dialect() + ": " + r[0]);
        }
      }
      // The rest: one row of expressions, the same on both engines.
      for (io.ncclinspector.report.engine.SqlEngine e : engines) {
        var d = e.dialect();
        List<Object> row = e.query("SELECT " + d.integerDivide("CAST(-7 AS BIGINT)", "2")
            + " AS a, " + d.integerDivide("CAST(7 AS BIGINT)", "2") + " AS b, "
            + d.literal("it's a \\ test") + " AS c, "
            + "(SELECT " + d.sortedDistinctList("op") + " FROM (SELECT 'b' AS op UNION ALL"
            + " SELECT 'a' UNION ALL SELECT 'b' UNION ALL SELECT NULL) o) AS e, "
            + "(SELECT max_by(r, " + d.pair("t", "r") + ") FROM (SELECT CAST(5 AS BIGINT) AS t,"
            + " CAST(1 AS BIGINT) AS r UNION ALL SELECT CAST(5 AS BIGINT), CAST(3 AS BIGINT)"
            + " UNION ALL SELECT CAST(4 AS BIGINT), CAST(7 AS BIGINT)) p) AS f, "
            + "(SELECT CAST(" + d.wideSum("v") + " AS STRING) FROM (SELECT"
            + " CAST(9223372036854775807 AS BIGINT) AS v UNION ALL SELECT"
            + " CAST(9223372036854775807 AS BIGINT)) w) AS g",
            r -> List.<Object>of(r.getLong("a"), r.getLong("b"), r.getString("c"), r.getString("e"),
                r.getLong("f"), r.getString("g"))).get(0);
        assertEquals(List.of(-3L, 3L, "it's a \\ test", "a,b", 3L, "18446744073709551614"), row,
            d.toString());
      }
      // A JSON list inside a text column, one row per element; other keys and fields ignored.
      List<JsonLayout.Field> fields = List.of(new JsonLayout.Field("peer", JsonLayout.Type.INT),
          new JsonLayout.Field("send", JsonLayout.Type.BOOLEAN),
          new JsonLayout.Field("bytes", JsonLayout.Type.BIGINT));
      String texts = "SELECT '{\"a\":1,\"proxy_ops\":[{\"peer\":3,\"send\":true,\"bytes\":10,"
          + "\"x\":1},{\"bytes\":5,\"peer\":1,\"send\":false}]}' AS t UNION ALL SELECT '{}'"
          + " UNION ALL SELECT CAST(NULL AS STRING) UNION ALL SELECT '{\"proxy_ops\":[]}'";
      for (io.ncclinspector.report.engine.SqlEngine e : engines) {
        var d = e.dialect();
        List<String> rows = e.query("SELECT e.x.peer AS peer, e.x.send AS send, e.x.bytes AS b"
            + " FROM (SELECT " + d.explode(d.jsonStructArray("t", "proxy_ops", fields)) + " AS x"
            + " FROM (" + texts + ") s) e ORDER BY peer",
            r -> r.getInt("peer") + "/" + r.getBoolean("send") + "/" + r.getLong("b"));
        assertEquals(List.of("1/false/5", "3/true/10"), rows, d.toString());
      }
    }
  }

  private static void gzip(Path file, byte[] content) throws Exception {
    try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(file))) {
      out.write(content);
    }
  }
}
