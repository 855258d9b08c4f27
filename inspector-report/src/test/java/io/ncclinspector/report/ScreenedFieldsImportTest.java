package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.engine.duckdb.EngineSettings;
import io.ncclinspector.report.input.LineScreen;
import io.ncclinspector.report.input.ScreenFuzz;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The import tells DuckDB's typed reader of only the fields the screen saw in a batch's files:
 * the fields of all of them, so that a file's fields that another file of its batch lacks still
 * arrive (DuckDB would take an undeclared field for absent).
 */
class ScreenedFieldsImportTest {
  @TempDir
  Path tmp;

  @Test
  void everyFileOfABatchKeepsItsOwnFields() throws Exception {
    String seed = ScreenFuzz.SEEDS.get(3); // a collective of ours, without the rarer fields
    String rich = seed.substring(0, seed.length() - 2) + ",\"coll_net_bytes_sent\":123,"
        + "\"coll_net_proxy_ops\":2,\"coll_flags\":[\"x\"]}}";
    Path logs = Files.createDirectories(tmp.resolve("logs"));
    // The rich file first and the plain one after: a batch's fields are not its first file's.
    write(logs.resolve("a-rich.log"), rich, 40);
    write(logs.resolve("b-plain.log"), seed, 60);
    LineScreen screen = new LineScreen();
    for (String f : List.of("a-rich.log", "b-plain.log")) {
      try (InputStream in = Files.newInputStream(logs.resolve(f))) {
        assertTrue(screen.passes(in), f + " is read with the typed reader");
      }
    }
    assertTrue(!screen.fieldsSeen().contains("coll_perf.coll_net_bytes_sent"),
        "the plain file lacks the rich file's fields");

    ReportResult r = TestSupport.report(tmp.resolve("out"), logs.toString());
    try (DuckDbEngine e = DuckDbEngine.open(new EngineSettings(1, null, tmp.resolve("db")))) {
      String parts = TestSupport.exportParts(r);
      assertEquals(100L, count(e, "SELECT count(*) FROM " + parts));
      assertEquals(40L, count(e, "SELECT count(*) FROM " + parts + " WHERE source_file LIKE"
          + " '%a-rich.log' AND net_bytes_sent = 123 AND net_proxy_ops = 2 AND flags = ['x']"));
      assertEquals(60L, count(e, "SELECT count(*) FROM " + parts + " WHERE source_file LIKE"
          + " '%b-plain.log' AND net_bytes_sent IS NULL AND net_proxy_ops IS NULL"
          + " AND flags IS NULL AND sn BETWEEN 0 AND 59"));
    }
  }

  /** {@code n} copies of a collective's line, its sequence number 0 to n - 1. */
  private static void write(Path file, String line, int n) throws Exception {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      lines.add(line.replace("\"coll_sn\":0,", "\"coll_sn\":" + i + ","));
    }
    TestSupport.writeLines(file, lines);
  }

  private static long count(DuckDbEngine e, String sql) throws Exception {
    return e.query(sql, q -> q.getLong(1)).get(0);
  }
}
