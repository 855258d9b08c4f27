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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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

  /**
   * The import tells the typed reader of only the fields that the screen saw its files' lines
   * hold; the others it gives as nulls of their types. That must still be the checked reading's
   * rows, for a file alone and for files of different fields read together (the fields of all of
   * them declared). And the set must be complete: the reader takes a field it was not told of
   * for absent, which the last check shows.
   */
  @Test
  void typedReadingOfTheFieldsTheScreenSawEqualsTheCheckedReading()
      throws IOException, SQLException {
    LineScreen screen = new LineScreen();
    List<String> plain = new ArrayList<>();
    List<String> rich = new ArrayList<>();
    List<String> candidates = new ArrayList<>(ScreenFuzz.SEEDS);
    candidates.addAll(ScreenFuzz.lines(3, 20_000));
    String synthetic = ScreenFuzz.SEEDS.get(3);
    candidates.add(synthetic.substring(0, synthetic.length() - 2)
        + ",\"coll_net_bytes_sent\":123,\"coll_net_slowest_peer\":2,\"coll_flags\":[\"x\"]}}");
    for (String line : candidates) {
      if (ScreenFuzz.passes(screen, line)) {
        (line.contains("\"event_trace") || line.contains("_flags\"") || line.contains("_net_")
            ? rich : plain).add(line);
      }
    }
    Path a = dir.resolve("plain.log");
    Path b = dir.resolve("rich.log");
    TestSupport.writeLines(a, plain);
    TestSupport.writeLines(b, rich);
    Set<String> heldA = held(screen, a);
    Set<String> heldB = held(screen, b);
    for (String f : List.of("coll_perf.coll_net_bytes_sent", "coll_perf.coll_flags",
        "coll_perf.event_trace_sn")) {
      assertTrue(heldB.contains(f) && !heldA.contains(f), f);
    }
    assertTrue(heldA.contains("p2p_perf.p2p_peer"), "both kinds in the plain file: " + heldA);
    Set<String> both = new HashSet<>(heldA);
    both.addAll(heldB);

    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE checked AS " + rows(List.of(a, b), JsonLayout.Reading.JSON_TEXT,
          null));
      s.execute("CREATE TABLE checked_a AS " + rows(List.of(a), JsonLayout.Reading.JSON_TEXT,
          null));
      s.execute("CREATE TABLE held_a AS " + rows(List.of(a), JsonLayout.Reading.TYPED, heldA));
      s.execute("CREATE TABLE held_both AS " + rows(List.of(a, b), JsonLayout.Reading.TYPED,
          both));
      s.execute("CREATE TABLE b_told_of_a AS " + rows(List.of(b), JsonLayout.Reading.TYPED,
          heldA));
      assertEquals(plain.size() + rich.size(), count(s, "SELECT count(*) FROM checked WHERE valid"));
      assertEquals(0, differing(s, "checked_a", "held_a"), "one file, its fields");
      assertEquals(0, differing(s, "checked", "held_both"), "two files, their fields");
      assertEquals(columns(s, "checked"), columns(s, "held_a"), "the columns' names and types");
      assertTrue(differing(s, "checked", "b_told_of_a") > rich.size(),
          "a field the reader is not told of is read as absent");
    }
  }

  private static Set<String> held(LineScreen screen, Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      assertTrue(screen.passes(in), file.toString());
    }
    return screen.fieldsSeen();
  }

  private static String rows(List<Path> files, JsonLayout.Reading reading, Set<String> present) {
    RecordSchema.ColumnSet all = RecordSchema.ColumnSet.ALL;
    return "SELECT " + RecordSchema.finalColumns("r_file", all) + ", " + RecordSchema.VALIDITY
        + " AS valid FROM (" + RecordSchema.raw("filename", reading, "SELECT * FROM "
            + RecordImporter.readJson(files.stream().map(Path::toString).toList(),
                Compression.NONE, reading, RecordSchema.typedFields(all), present), all, present)
        + ") r";
  }

  /** Rows of one table not in the other, both ways, the file's name aside. */
  private static long differing(Statement s, String x, String y) throws SQLException {
    return count(s, "SELECT count(*) FROM ((SELECT * EXCLUDE (source_file) FROM " + x
        + " EXCEPT ALL SELECT * EXCLUDE (source_file) FROM " + y + ") UNION ALL (SELECT *"
        + " EXCLUDE (source_file) FROM " + y + " EXCEPT ALL SELECT * EXCLUDE (source_file) FROM "
        + x + "))");
  }

  private static List<String> columns(Statement s, String table) throws SQLException {
    List<String> out = new ArrayList<>();
    try (ResultSet r = s.executeQuery("SELECT column_name || ' ' || data_type FROM"
        + " information_schema.columns WHERE table_name = '" + table + "' ORDER BY"
        + " ordinal_position")) {
      while (r.next()) {
        out.add(r.getString(1));
      }
    }
    return out;
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
