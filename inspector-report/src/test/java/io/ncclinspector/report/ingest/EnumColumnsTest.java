package io.ncclinspector.report.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.report.Progress;
import io.ncclinspector.report.TestSupport;
import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.engine.duckdb.EngineSettings;
import io.ncclinspector.report.input.LogDiscovery;
import io.ncclinspector.report.input.ScreenFuzz;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The import writes the text columns whose values it knows before the copy (the ones its SQL
 * spells out, the file names) as DuckDB ENUMs, which DuckDB writes to Parquet as the same text
 * at less cost. The lists must hold every value; a value outside one falls back to text.
 */
class EnumColumnsTest {
  @TempDir
  Path tmp;

  /** Each list is what its column's SQL can give: the literals it gives after THEN or ELSE. */
  @Test
  void eachClosedColumnListsEveryValueItsSqlGives() {
    Pattern given = Pattern.compile("(?:THEN|ELSE) '([^']*)'");
    for (Map.Entry<String, List<String>> e : RecordSchema.CLOSED_TEXT.entrySet()) {
      RecordSchema.Column c = RecordSchema.COLUMNS.stream()
          .filter(k -> k.name().equals(e.getKey())).findFirst().orElseThrow();
      Set<String> literals = new HashSet<>();
      Matcher m = given.matcher(c.sql());
      while (m.find()) {
        literals.add(m.group(1));
      }
      assertEquals(literals, new HashSet<>(e.getValue()), c.name());
    }
  }

  @Test
  void writesTheSameRecordsAsTextAndFallsBackOnAValueNotListed() throws Exception {
    Path logs = Files.createDirectories(tmp.resolve("logs"));
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      lines.add(ScreenFuzz.SEEDS.get(i % ScreenFuzz.SEEDS.size())); // both kinds and producers
    }
    TestSupport.writeLines(logs.resolve("a.log"), lines);
    TestSupport.writeLines(logs.resolve("b.log"), lines.subList(0, 10));

    List<String> listed = importAndRead(logs, "listed", RecordSchema.CLOSED_TEXT, true);
    Map<String, List<String>> noP2p = new HashMap<>(RecordSchema.CLOSED_TEXT);
    noP2p.put("kind", List.of("coll"));
    List<String> fellBack = importAndRead(logs, "fell-back", noP2p, false);
    assertEquals(40 + 5, listed.size());
    assertEquals(listed, fellBack);
    assertTrue(listed.stream().anyMatch(r -> r.contains("|p2p|")), listed.toString());
  }

  /** The records imported with the lists, sorted, as text; checks whether the casts held. */
  private List<String> importAndRead(Path logs, String name, Map<String, List<String>> lists,
      boolean castsHold) throws Exception {
    Path out = tmp.resolve(name);
    try (DuckDbEngine e = DuckDbEngine.open(new EngineSettings(1, null, out.resolve("db")))) {
      RecordImporter importer = new RecordImporter(e, out.resolve("records"),
          out.resolve("staging"), Progress.silent(), RecordImporter.Options.defaults(), 1,
          RecordSchema.ColumnSet.ALL).closedText(lists);
      ImportResult r = importer.run(LogDiscovery.discover(List.of(logs.toString()), out).logs());
      assertEquals(castsHold, importer.wroteEnums(), name);
      String parts = DuckDbEngine.literalList(r.parts().stream().map(Path::toString).toList());
      List<String> rows = e.query("SELECT concat_ws('|', source_file, producer, kind, op,"
          + " comm_type, coalesce(excluded_reason, '-'), sn) AS row FROM read_parquet(" + parts
          + ") ORDER BY row", q -> q.getString(1));
      // The files' columns: text either way.
      List<String> schema = e.query("SELECT DISTINCT name || ':' || type || ':'"
          + " || coalesce(converted_type, '') AS c FROM parquet_schema(" + parts + ") WHERE name IN"
          + " ('source_file', 'producer', 'kind', 'comm_type', 'excluded_reason') ORDER BY c",
          q -> q.getString(1));
      assertEquals(5, schema.size(), schema.toString());
      schema.forEach(c -> assertTrue(c.endsWith(":BYTE_ARRAY:UTF8"), c));
      List<String> all = new ArrayList<>(rows);
      all.addAll(schema);
      return all;
    }
  }
}
