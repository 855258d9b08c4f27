package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.engine.duckdb.EngineSettings;
import io.ncclinspector.report.ingest.RecordSchema;
import io.ncclinspector.report.ingest.RecordSchema.ColumnSet;
import io.ncclinspector.report.output.OutputFiles;
import io.ncclinspector.report.output.ReportData;
import io.ncclinspector.report.synthetic.LogFormat;
import io.ncclinspector.report.synthetic.SyntheticConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --records core}: the export holds the core columns only, read from their fields alone,
 * and the report is the one that all the columns give; either export reads back as input.
 */
class CoreColumnsTest {
  @TempDir
  Path tmp;

  private static ReportResult report(Path out, ColumnSet set, String... inputs) throws Exception {
    return TestSupport.report(ReportOptions.builder(out).inputs(inputs)
        .threads(TestSupport.THREADS).progress(false).recordColumns(set).build());
  }

  private DuckDbEngine reader() throws Exception {
    return DuckDbEngine.open(new EngineSettings(1, null, tmp.resolve("reader")));
  }

  @Test
  void theCoreExportHoldsTheCoreColumnsAndTheReportIsTheSame() throws Exception {
    Path logs = tmp.resolve("logs");
    TestSupport.generate(SyntheticConfig.builder(logs).iterations(40).straggler(5, 0.3, 600_000)
        .seed(9).build());
    // One file the screen refuses, read the checked way: a line with a field of another JSON
    // type (a non-core field, which makes the line unusable all the same) and a quoted rank.
    Path checked;
    try (Stream<Path> s = Files.list(logs)) {
      checked = s.sorted().findFirst().orElseThrow();
    }
    List<String> lines = new java.util.ArrayList<>(Files.readAllLines(checked));
    lines.add(lines.get(0).replaceFirst("\"coll_nwarps\":(\\d+)", "\"coll_nwarps\":\"$1\""));
    lines.add(lines.get(1).replaceFirst("\"rank\":(\\d+)", "\"rank\":\"$1\""));
    assertTrue(lines.get(lines.size() - 2).contains("\"coll_nwarps\":\""));
    assertTrue(lines.get(lines.size() - 1).contains("\"rank\":\""));
    Files.write(checked, lines);
    // The reference's format, gzip: other fields, and its near-2^64 sizes.
    Path reference = tmp.resolve("reference");
    TestSupport.generate(SyntheticConfig.builder(reference).nodes(1).gpusPerNode(2)
        .iterations(60).format(LogFormat.REFERENCE).gzip(true).uint8Probability(0.2).seed(6)
        .build());
    // Network breakdown and P2P: the recorded two-rank run over sockets with a late rank.
    Path net = NetworkAnalysisTest.LATE;
    String[] inputs = {logs.toString(), reference.toString(), net.toString()};
    ReportResult all = report(tmp.resolve("all"), ColumnSet.ALL, inputs);
    ReportResult core = report(tmp.resolve("core"), ColumnSet.CORE, inputs);
    assertTrue(all.data().overview().excluded().getOrDefault("invalid_size", 0L) > 0,
        "the reference's uint8 sizes are there");

    List<RecordSchema.Column> columns = ColumnSet.CORE.columns();
    try (DuckDbEngine e = reader()) {
      List<String> schema = e.query("DESCRIBE SELECT * FROM " + TestSupport.exportParts(core),
          q -> q.getString("column_name") + " " + q.getString("column_type"));
      assertEquals(columns.stream().map(c -> c.name() + " " + c.type()).toList(), schema);
      assertTrue(columns.size() < RecordSchema.COLUMNS.size());
      // Every core column holds what the full export holds, record for record.
      String names = columns.stream().map(c -> DuckDbEngine.identifier(c.name()))
          .collect(Collectors.joining(", "));
      String a = "SELECT " + names + " FROM " + TestSupport.exportParts(all);
      String c = "SELECT " + names + " FROM " + TestSupport.exportParts(core);
      assertEquals(all.data().overview().records(), e.query("SELECT count(*) FROM " + TestSupport.exportParts(core),
          q -> q.getLong(1)).get(0));
      assertEquals(0L, e.query("SELECT count(*) FROM ((" + a + " EXCEPT ALL " + c
          + ") UNION ALL (" + c + " EXCEPT ALL " + a + "))", q -> q.getLong(1)).get(0));
      // The inputs have what the core columns are for: network waits, stragglers, labels.
      assertTrue(e.query("SELECT count(*) FROM " + TestSupport.exportParts(core) + " WHERE net_recv_wait_ns IS NOT"
          + " NULL", q -> q.getLong(1)).get(0) > 0);
    }

    ReportData x = all.data();
    ReportData y = core.data();
    assertEquals(2, x.imported().rejected());
    assertEquals(x.imported().rejected(), y.imported().rejected());
    assertEquals(x.imported().rejectedLines(), y.imported().rejectedLines());
    assertEquals(x.overview(), y.overview());
    TestSupport.assertSameRows(x.classes(), y.classes());
    TestSupport.assertSameRows(x.ranks(), y.ranks());
    TestSupport.assertSameRows(x.communicators(), y.communicators());
    assertEquals(x.stragglers().alignedCollectives(), y.stragglers().alignedCollectives());
    assertEquals(x.stragglers().lateCollectives(), y.stragglers().lateCollectives());
    TestSupport.assertSameRows(x.stragglers().suspects(), y.stragglers().suspects());
    assertEquals(x.network().withBreakdown(), y.network().withBreakdown());
    assertEquals(x.network().notableWaits(), y.network().notableWaits());
    assertTrue(y.network().notableWaits() > 0);
    assertEquals(x.p2pCompletion().measured(), y.p2pCompletion().measured());
    TestSupport.assertSameRows(x.p2pCompletion().transfers(), y.p2pCompletion().transfers());
    for (String table : List.of(OutputFiles.COLLECTIVES, OutputFiles.NETWORK_WAITS)) {
      assertEquals(Files.size(all.outputDirectory().resolve(table)) > 0,
          Files.size(core.outputDirectory().resolve(table)) > 0, table);
    }

    ObjectMapper json = new ObjectMapper();
    assertEquals("all", json.readTree(all.outputDirectory().resolve(OutputFiles.MANIFEST)
        .toFile()).path("imports").path("record_columns").asText());
    assertEquals("core", json.readTree(core.outputDirectory().resolve(OutputFiles.MANIFEST)
        .toFile()).path("imports").path("record_columns").asText());
  }

  @Test
  void aCoreExportReadsBackIntoAReportOfAllColumns() throws Exception {
    Path node0 = Files.createDirectories(tmp.resolve("node0"));
    Path node1 = Files.createDirectories(tmp.resolve("node1"));
    Path logs = tmp.resolve("logs");
    TestSupport.generate(SyntheticConfig.builder(logs).nodes(2).gpusPerNode(2).iterations(200)
        .seed(3).build());
    try (Stream<Path> s = Files.list(logs)) {
      for (Path f : s.toList()) {
        Files.copy(f, (f.getFileName().toString().startsWith("node00") ? node0 : node1)
            .resolve(f.getFileName()));
      }
    }
    ReportResult first = report(tmp.resolve("first"), ColumnSet.CORE, node0.toString());
    ReportResult again = report(tmp.resolve("again"), ColumnSet.ALL,
        first.recordsDirectory().toString(), node1.toString());
    ReportResult direct = report(tmp.resolve("direct"), ColumnSet.ALL, node0.toString(),
        node1.toString());
    assertEquals(direct.data().overview(), again.data().overview());
    TestSupport.assertSameRows(direct.data().classes(), again.data().classes());
    try (DuckDbEngine e = reader()) {
      // The columns the core export lacks are null for its records, present for the others.
      String node0Records = " FROM " + TestSupport.exportParts(again) + " WHERE source_file LIKE "
          + DuckDbEngine.literal(node0 + "%");
      long fromCore = e.query("SELECT count(*)" + node0Records, q -> q.getLong(1)).get(0);
      assertEquals(first.data().overview().records(), fromCore);
      assertEquals(0L, e.query("SELECT count(exec_time_ns)" + node0Records,
          q -> q.getLong(1)).get(0));
      assertTrue(e.query("SELECT count(exec_time_ns) FROM " + TestSupport.exportParts(again),
          q -> q.getLong(1)).get(0) > 0);
    }
    // And an export of all columns reads back into a core report.
    ReportResult back = report(tmp.resolve("back"), ColumnSet.CORE,
        direct.recordsDirectory().toString());
    assertEquals(direct.data().overview().records(), back.data().overview().records());
  }
}
