package io.ncclinspector.report.engine.duckdb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Replays statements of a report's trace log in a DuckDB opened with the report's settings, and
 * times each, for the benchmarks (BENCHMARKS.md): one statement's variants measured in one JVM,
 * after the statements it depends on, instead of whole runs whose spread hides a few hundred ms.
 *
 * <pre>java -Dorg.slf4j.simpleLogger.log.io.ncclinspector.report=trace -cp REPORT_CLASSPATH \
 *     io.ncclinspector.report.ReportCommand LOGS --out OUT -q 2&gt; LOG
 * java -cp REPORT_CLASSPATH:TEST_JAR io.ncclinspector.report.engine.duckdb.StatementReplay \
 *     LOG [--threads N] STEP...</pre>
 *
 * <p>A STEP is the index of a statement in the log (0 the first the engine ran; {@code --list}
 * prints them), {@code @FILE} a statement in a file (a variant), or {@code A-B} the log's
 * statements A to B. The log's statements refer to the run's output (its records export), which
 * must still be there. Each step prints its wall time, rows returned and the statement's start.
 */
public final class StatementReplay {
  private static final String MARK = "DuckDbEngine - ";

  private StatementReplay() {}

  /**
   * The statements of a trace log, in the order the engine ran them: a statement starts on the
   * engine's TRACE line and goes on over the lines that are not log lines (the import's spans
   * several).
   */
  static List<String> statements(Path log) throws IOException {
    List<String> out = new ArrayList<>();
    StringBuilder current = null;
    for (String line : Files.readAllLines(log)) {
      if (line.startsWith("[")) {
        if (current != null) {
          out.add(current.toString());
          current = null;
        }
        int at = line.indexOf(MARK);
        int ms = at < 0 ? -1 : line.indexOf(" ms: ", at);
        if (line.contains(" TRACE ") && ms > 0) {
          current = new StringBuilder(line.substring(ms + 5));
        }
      } else if (current != null) {
        current.append('\n').append(line);
      }
    }
    if (current != null) {
      out.add(current.toString());
    }
    return out;
  }

  public static void main(String[] args) throws IOException, SQLException {
    List<String> logged = statements(Path.of(args[0]));
    int threads = 2;
    List<String> steps = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      if (args[i].equals("--threads")) {
        threads = Integer.parseInt(args[++i]);
      } else if (args[i].equals("--list")) {
        for (int k = 0; k < logged.size(); k++) {
          System.out.printf(Locale.ROOT, "%d: %s%n", k, start(logged.get(k), 100));
        }
        return;
      } else {
        steps.add(args[i]);
      }
    }
    Path spill = Files.createTempDirectory("statement-replay");
    try (DuckDbEngine engine = DuckDbEngine.open(new EngineSettings(threads, null, spill))) {
      for (String step : steps) {
        for (String sql : resolve(step, logged)) {
          long t0 = System.nanoTime();
          long rows = execute(engine.connection(), sql);
          long ms = (System.nanoTime() - t0) / 1_000_000;
          System.out.printf(Locale.ROOT, "%d ms, %d rows: %s%n", ms, rows, start(sql, 90));
        }
      }
    }
  }

  /** Runs one statement and reads every row it returns; the number of rows. */
  private static long execute(Connection c, String sql) throws SQLException {
    long rows = 0;
    try (Statement st = c.createStatement()) {
      if (st.execute(sql)) {
        try (ResultSet r = st.getResultSet()) {
          while (r.next()) {
            rows++;
          }
        }
      }
    }
    return rows;
  }

  private static String start(String sql, int chars) {
    return sql.substring(0, Math.min(chars, sql.length())).replace('\n', ' ');
  }

  private static List<String> resolve(String step, List<String> logged) throws IOException {
    if (step.startsWith("@")) {
      return List.of(Files.readString(Path.of(step.substring(1))));
    }
    int dash = step.indexOf('-');
    if (dash > 0) {
      return logged.subList(Integer.parseInt(step.substring(0, dash)),
          Integer.parseInt(step.substring(dash + 1)) + 1);
    }
    return List.of(logged.get(Integer.parseInt(step)));
  }
}
