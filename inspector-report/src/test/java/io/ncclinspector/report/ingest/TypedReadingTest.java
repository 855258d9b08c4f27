package io.ncclinspector.report.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.report.TestSupport;
import io.ncclinspector.report.input.Compression;
import io.ncclinspector.report.input.LineScreen;
import io.ncclinspector.report.input.ScreenFuzz;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The import reads a file the screen passed with DuckDB's typed reader, and every other file the
 * checked way: for lines the screen passes, both readings must give the same rows, every column
 * and every bit.
 */
class TypedReadingTest {
  @TempDir
  Path dir;

  @Test
  void typedReadingOfScreenedLinesEqualsTheCheckedReading() throws IOException, SQLException {
    LineScreen screen = new LineScreen();
    List<String> lines = new ArrayList<>(ScreenFuzz.SEEDS);
    for (String line : ScreenFuzz.lines(2, 40_000)) {
      if (ScreenFuzz.passes(screen, line)) {
        lines.add(line);
      }
    }
    // The lines passed are varied: escapes, signs, exponents, sizes near 2^64, spacing, UTF-8.
    for (String feature : List.of("\\\"", "\\t", ":-", "e-", "E+", "18446744073709551615", ": ",
        "\t", "[]", "{}", "\\u00e9", "\\u0001", "\u2713", "\ud83d\ude80")) {
      assertTrue(lines.stream().anyMatch(l -> l.contains(feature)), feature);
    }
    Path plain = dir.resolve("screened.log");
    TestSupport.writeLines(plain, lines);
    Path gz = dir.resolve("screened.log.gz");
    TestSupport.gzip(gz, Files.readAllBytes(plain));
    try (InputStream in = Files.newInputStream(plain)) {
      assertTrue(screen.passes(in));
    }
    assertEquals(lines.size(), screen.lines());

    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE checked AS " + rows(plain, Compression.NONE,
          JsonLayout.Reading.JSON_TEXT));
      s.execute("CREATE TABLE typed AS " + rows(plain, Compression.NONE,
          JsonLayout.Reading.TYPED));
      s.execute("CREATE TABLE typed_gz AS " + rows(gz, Compression.GZIP,
          JsonLayout.Reading.TYPED));
      assertEquals(lines.size(), count(s, "SELECT count(*) FROM checked WHERE valid"),
          "every screened line is a usable record to the checked reading");
      for (String t : List.of("typed", "typed_gz")) {
        assertEquals(lines.size(), count(s, "SELECT count(*) FROM " + t));
        assertEquals(0, count(s, "SELECT count(*) FROM ((SELECT * EXCLUDE (source_file) FROM "
            + "checked EXCEPT ALL SELECT * EXCLUDE (source_file) FROM " + t + ") UNION ALL "
            + "(SELECT * EXCLUDE (source_file) FROM " + t + " EXCEPT ALL SELECT * EXCLUDE "
            + "(source_file) FROM checked))"), t + " differs from the checked reading");
      }

      // The core export: the typed reader is given only the fields its columns read.
      assertTrue(RecordSchema.fieldsRead(RecordSchema.ColumnSet.CORE).size()
          < RecordSchema.fieldsRead(RecordSchema.ColumnSet.ALL).size());
      String core = RecordSchema.ColumnSet.CORE.columns().stream()
          .map(RecordSchema.Column::name).filter(n -> !n.equals("source_file"))
          .collect(java.util.stream.Collectors.joining(", "));
      s.execute("CREATE TABLE typed_core AS " + rows(plain, Compression.NONE,
          JsonLayout.Reading.TYPED, RecordSchema.ColumnSet.CORE));
      assertEquals(RecordSchema.ColumnSet.CORE.columns().size() + 1, count(s,
          "SELECT count(*) FROM information_schema.columns WHERE table_name = 'typed_core'"));
      assertEquals(lines.size(), count(s, "SELECT count(*) FROM typed_core WHERE valid"));
      assertEquals(0, count(s, "SELECT count(*) FROM ((SELECT " + core + ", valid FROM checked"
          + " EXCEPT ALL SELECT " + core + ", valid FROM typed_core) UNION ALL (SELECT " + core
          + ", valid FROM typed_core EXCEPT ALL SELECT " + core + ", valid FROM checked))"),
          "the core columns read from their fields alone differ from the checked reading");
    }
  }

  private static String rows(Path file, Compression compression, JsonLayout.Reading reading,
      RecordSchema.ColumnSet set) {
    return "SELECT " + RecordSchema.finalColumns("r_file", set) + ", " + RecordSchema.VALIDITY
        + " AS valid FROM (" + RecordSchema.raw("filename", reading, "SELECT * FROM "
            + RecordImporter.readJson(List.of(file.toString()), compression, reading,
                RecordSchema.typedFields(set)), set) + ") r";
  }

  private static String rows(Path file, Compression compression, JsonLayout.Reading reading) {
    return "SELECT " + RecordSchema.finalColumns("r_file") + ", " + RecordSchema.VALIDITY
        + " AS valid FROM (" + RecordSchema.raw("filename", reading, "SELECT * FROM "
            + RecordImporter.readJson(List.of(file.toString()), compression, reading)) + ") r";
  }

  private static long count(Statement s, String sql) throws SQLException {
    try (ResultSet r = s.executeQuery(sql)) {
      r.next();
      return r.getLong(1);
    }
  }

  static String text(Path p) throws IOException {
    return Files.readString(p, StandardCharsets.UTF_8);
  }
}
