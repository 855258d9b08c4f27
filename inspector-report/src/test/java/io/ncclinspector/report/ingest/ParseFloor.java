package io.ncclinspector.report.ingest;

import io.ncclinspector.report.input.Compression;
import io.ncclinspector.report.input.InputPrecheck;
import io.ncclinspector.report.input.LogFile;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The floor under the import, for the benchmarks (BENCHMARKS.md, "Offline report at scale: 10 M
 * records"): how long DuckDB takes, on this machine's cores, to parse a directory of plain log
 * files, to hand over every field as JSON text (what the import's type check reads), and to
 * make the import's rows from them without writing them. Each step is timed as a whole (wall
 * time and the process's CPU time) and prints one line.
 *
 * <pre>java -cp REPORT_CLASSPATH:TEST_JAR io.ncclinspector.report.ingest.ParseFloor DIR [STEPS]</pre>
 *
 * <p>STEPS, comma-separated, picks other steps instead: 0 the import's rows read typed, not
 * written; 1 the same written to Parquet; 2 the checked reading written to Parquet; 3 every
 * field typed; 4 parsing with typed columns; 5 the typed raw rows; 6 the first pass's screen;
 * with {@code --records core}'s reader of fewer fields: 7 parsing, 8 the typed raw rows, 9 the
 * import's rows not written, 10 written to Parquet; 11 the four typed objects stored in a table;
 * 12 as many rows of the same four objects given to DuckDB's Java appender (constant values, no
 * parsing: what an import that parsed the lines in Java would pay on top of its parsing).
 */
public final class ParseFloor {
  private ParseFloor() {}

  /** One measured statement. */
  record Step(String name, String sql) {}

  /** Not a statement: the import's first pass ({@code InputPrecheck}) over the files. */
  private static final String SCREEN = "screen";
  /** Not a statement: rows appended through DuckDB's appender (see {@link #append}). */
  private static final String APPEND = "append";

  public static void main(String[] args) throws IOException, SQLException {
    Path dir = Path.of(args[0]);
    List<String> paths;
    try (Stream<Path> s = Files.list(dir)) {
      paths = s.filter(p -> p.toString().endsWith(".log") || p.toString().endsWith(".jsonl"))
          .map(p -> p.toAbsolutePath().toString()).sorted().toList();
    }
    String read = RecordImporter.readJson(paths, Compression.NONE);
    String rows = "SELECT " + RecordSchema.finalColumns("r_file") + ", " + RecordSchema.VALIDITY
        + " AS valid FROM (" + RecordSchema.raw("filename", JsonLayout.Reading.JSON_TEXT,
            "SELECT * FROM " + read) + ") r";
    String typedRead = RecordImporter.readJson(paths, Compression.NONE, JsonLayout.Reading.TYPED);
    String typedRows = "SELECT " + RecordSchema.finalColumns("r_file") + ", " + RecordSchema.VALIDITY
        + " AS valid FROM (" + RecordSchema.raw("filename", JsonLayout.Reading.TYPED,
            "SELECT * FROM " + typedRead) + ") r";
    RecordSchema.ColumnSet core = RecordSchema.ColumnSet.CORE;
    String coreRead = RecordImporter.readJson(paths, Compression.NONE, JsonLayout.Reading.TYPED,
        RecordSchema.typedFields(core));
    String coreRaw = RecordSchema.raw("filename", JsonLayout.Reading.TYPED, "SELECT * FROM "
        + coreRead, core);
    String coreRows = "SELECT " + RecordSchema.finalColumns("r_file", core) + ", "
        + RecordSchema.VALIDITY + " AS valid FROM (" + coreRaw + ") r";
    Path scratch = Files.createTempDirectory("parse-floor");
    List<Step> all = List.of(
        new Step("typed: the import's rows, not written", "SELECT count(COLUMNS(*)) FROM ("
            + typedRows + ")"),
        new Step("typed: the import's rows written to Parquet", "COPY (" + typedRows + ") TO '"
            + scratch.resolve("typed.parquet") + "' (" + io.ncclinspector.report.engine.duckdb
            .DuckDbEngine.PARQUET_OPTIONS + ")"),
        new Step("text: the import's rows written to Parquet", "COPY (" + rows + ") TO '"
            + scratch.resolve("text.parquet") + "' (" + io.ncclinspector.report.engine.duckdb
            .DuckDbEngine.PARQUET_OPTIONS + ")"),
        new Step("typed: every field", "SELECT count(COLUMNS(*)) FROM (SELECT header.*,"
            + " metadata.*, coll_perf.*, p2p_perf.* FROM " + typedRead + ")"),
        new Step("typed: parse", "SELECT count(*) FROM " + typedRead),
        new Step("typed: raw rows", "SELECT count(COLUMNS(*)) FROM (" + RecordSchema.raw(
            "filename", JsonLayout.Reading.TYPED, "SELECT * FROM " + typedRead) + ")"),
        new Step("the first pass's screen, every file, all threads", SCREEN),
        new Step("core: parse, the core columns' fields typed", "SELECT count(*) FROM "
            + coreRead),
        new Step("core: the typed raw rows", "SELECT count(COLUMNS(*)) FROM (" + coreRaw + ")"),
        new Step("core: the import's rows, not written", "SELECT count(COLUMNS(*)) FROM ("
            + coreRows + ")"),
        new Step("core: the import's rows written to Parquet", "COPY (" + coreRows + ") TO '"
            + scratch.resolve("core.parquet") + "' (" + io.ncclinspector.report.engine.duckdb
            .DuckDbEngine.PARQUET_OPTIONS + ")"),
        new Step("typed: the four objects stored in a table", "CREATE OR REPLACE TABLE objects AS"
            + " SELECT header, metadata, coll_perf, p2p_perf FROM " + typedRead),
        new Step("appender: as many rows of the four objects, constant values", APPEND));
    List<Step> steps = new java.util.ArrayList<>(List.of(
        new Step("parse every line", "SELECT count(*) FROM " + read),
        new Step("every field as JSON text", "SELECT count(COLUMNS(*)) FROM (SELECT header.*,"
            + " metadata.*, coll_perf.*, p2p_perf.* FROM " + read + ")"),
        new Step("the import's rows, not written", "SELECT count(COLUMNS(*)) FROM (" + rows
            + ")")));
    if (args.length > 1) {
      steps.clear();
      for (String a : args[1].split(",")) {
        steps.add(all.get(Integer.parseInt(a)));
      }
    }
    Properties p = new Properties();
    p.setProperty("threads", Integer.toString(Runtime.getRuntime().availableProcessors()));
    p.setProperty("preserve_insertion_order", "false");
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:", p)) {
      for (Step step : steps) {
        long appendRows = step.sql().equals(APPEND) ? prepareAppend(c, typedRead) : 0;
        long wall = System.nanoTime();
        long cpu = cpuNanos();
        try (Statement s = c.createStatement()) {
          if (step.sql().equals(SCREEN)) {
            List<LogFile> files = paths.stream().map(Path::of).map(f -> new LogFile(f,
                f.getFileName().toString(), f.toFile().length(), Compression.NONE)).toList();
            int passed = InputPrecheck.run(files, Runtime.getRuntime().availableProcessors())
                .screened().size();
            System.out.printf(Locale.ROOT, "screen passed %d of %d files%n", passed, files.size());
          } else if (step.sql().equals(APPEND)) {
            append(c, appendRows);
          } else if (step.sql().startsWith("COPY") || step.sql().startsWith("CREATE")) {
            s.execute(step.sql());
          } else {
            try (ResultSet r = s.executeQuery(step.sql())) {
              while (r.next()) {
                r.getObject(1);
              }
            }
          }
        }
        System.out.printf(Locale.ROOT, "%s: %.2f s wall, %.2f s CPU (%d files)%n", step.name(),
            (System.nanoTime() - wall) / 1e9, (cpuNanos() - cpu) / 1e9, paths.size());
      }
    }
  }

  /** An empty table of the typed reader's four objects; returns the files' line count. */
  private static long prepareAppend(Connection c, String typedRead) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("CREATE OR REPLACE TABLE appended AS SELECT header, metadata, coll_perf, p2p_perf"
          + " FROM " + typedRead + " LIMIT 0");
      try (ResultSet r = s.executeQuery("SELECT count(*) FROM " + typedRead)) {
        r.next();
        return r.getLong(1);
      }
    }
  }

  /**
   * Appends {@code rows} rows to {@code appended}: a collective's header, metadata and perf
   * object (its first 20 members set, the rest null, as in a record without a network
   * breakdown), no P2P object. The values are constants: no parsing is timed.
   */
  private static void append(Connection c, long rows) throws SQLException {
    List<List<String>> members = new java.util.ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT data_type FROM"
        + " information_schema.columns WHERE table_name = 'appended' ORDER BY ordinal_position")) {
      while (r.next()) {
        String struct = r.getString(1);
        List<String> types = new java.util.ArrayList<>();
        for (String m : struct.substring("STRUCT(".length(), struct.length() - 1).split(", ")) {
          types.add(m.substring(m.lastIndexOf(' ') + 1));
        }
        members.add(types);
      }
    }
    try (org.duckdb.DuckDBAppender a = c.unwrap(org.duckdb.DuckDBConnection.class)
        .createAppender(org.duckdb.DuckDBConnection.DEFAULT_SCHEMA, "appended")) {
      for (long i = 0; i < rows; i++) {
        a.beginRow();
        for (int o = 0; o < members.size(); o++) {
          if (o == 3) {
            a.appendNull();
            continue;
          }
          a.beginStruct();
          List<String> types = members.get(o);
          for (int m = 0; m < types.size(); m++) {
            if (o == 2 && m >= 20) {
              a.appendNull();
              continue;
            }
            switch (types.get(m)) {
              case "VARCHAR" -> a.append("RING");
              case "INTEGER" -> a.append((int) (i & 1023));
              case "BIGINT" -> a.append(1795942860000001489L + i);
              case "HUGEINT" -> a.appendHugeInt(4194304L, 0L);
              case "DOUBLE" -> a.append(161.319385);
              case "BOOLEAN" -> a.append(false);
              default -> a.appendNull();
            }
          }
          a.endStruct();
        }
        a.endRow();
      }
    }
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }
}
