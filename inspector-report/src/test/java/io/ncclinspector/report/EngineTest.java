package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.engine.duckdb.EngineSettings;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine never fetches an extension: what it needs is built in, the rest is locked out. */
class EngineTest {
  @Test
  void jsonAndParquetAreBuiltInAndAutomaticInstallIsOff(@TempDir Path tmp) throws Exception {
    try (DuckDbEngine e = DuckDbEngine.open(new EngineSettings(1, "1GB", tmp))) {
      Map<String, String> loaded = e.loadedExtensions().stream()
          .collect(Collectors.toMap(x -> x[0], x -> x[1]));
      for (String ext : DuckDbEngine.REQUIRED_EXTENSIONS) {
        assertTrue(loaded.getOrDefault(ext, "").startsWith("STATICALLY_LINKED"), ext + ": "
            + loaded);
      }
      List<String> settings = e.query("SELECT current_setting('autoinstall_known_extensions'),"
          + " current_setting('autoload_known_extensions'),"
          + " current_setting('allow_community_extensions'), current_setting('memory_limit')",
          r -> r.getString(1) + "," + r.getString(2) + "," + r.getString(3) + ","
              + r.getString(4));
      assertTrue(settings.get(0).startsWith("false,false,false,"), settings.get(0));
      // The configuration is locked: no query can switch automatic installation back on.
      assertThrows(SQLException.class,
          () -> e.execute("SET autoinstall_known_extensions = true"));
      assertThrows(SQLException.class,
          () -> e.execute("SET extension_directory = '/tmp/elsewhere'"));
      // And the built-in extensions do their work offline.
      java.nio.file.Files.writeString(tmp.resolve("x.json"), "{\"a\":1}\n{\"a\":2}\n");
      assertEquals(3L, e.query("SELECT sum(a) FROM read_json("
          + DuckDbEngine.literal(tmp.resolve("x.json").toString()) + ")", r -> r.getLong(1))
          .get(0));
      e.execute("COPY (SELECT 42 AS v) TO " + DuckDbEngine.literal(tmp.resolve("v.parquet")
          .toString()) + " (FORMAT parquet)");
      assertEquals(42, e.query("SELECT v FROM read_parquet(" + DuckDbEngine.literal(
          tmp.resolve("v.parquet").toString()) + ")", r -> r.getInt(1)).get(0));
    }
  }

  /** Both of the wide division's paths: 64-bit dividends and those past 2^63. */
  @Test
  void dividesWideSumsExactlyInEitherWidth(@TempDir Path tmp) throws Exception {
    try (DuckDbEngine e = DuckDbEngine.open(new EngineSettings(1, "1GB", tmp))) {
      String sql = "SELECT " + e.dialect().wideDivide("w", "d") + " FROM (VALUES"
          + " (CAST(-7 AS HUGEINT), 2), (CAST(7 AS HUGEINT), -2),"
          + " (CAST(9223372036854775807 AS HUGEINT), 1),"
          + " (CAST(9223372036854775807 AS HUGEINT) * 3 + 2, 3),"
          + " (CAST(-9223372036854775808 AS HUGEINT) * 2 - 1, 2)) t(w, d)";
      assertEquals(List.of(-3L, -3L, 9223372036854775807L, 9223372036854775807L,
          -9223372036854775808L), e.query(sql, r -> r.getLong(1)));
    }
  }

  @Test
  void rejectsAMalformedMemoryLimit(@TempDir Path tmp) {
    assertThrows(IllegalArgumentException.class, () -> new EngineSettings(1, "lots", tmp));
    assertThrows(IllegalArgumentException.class, () -> new EngineSettings(0, null, tmp));
  }

  @Test
  void quotesLiteralsAndIdentifiers() {
    assertEquals("'it''s'", DuckDbEngine.literal("it's"));
    assertEquals("['a', 'b''c']", DuckDbEngine.literalList(List.of("a", "b'c")));
    assertEquals("\"we\"\"ird\"", DuckDbEngine.identifier("we\"ird"));
  }
}
