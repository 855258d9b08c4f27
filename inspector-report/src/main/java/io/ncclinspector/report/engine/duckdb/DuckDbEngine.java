package io.ncclinspector.report.engine.duckdb;

import io.ncclinspector.report.engine.RowMapper;
import io.ncclinspector.report.engine.SqlDialect;
import io.ncclinspector.report.engine.SqlEngine;
import io.ncclinspector.report.engine.SqlRow;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.DoubleConsumer;
import org.duckdb.DuckDBConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded DuckDB: one in-memory database, configured so that it never fetches anything from
 * the network. The JSON and Parquet readers and writers this report needs are compiled into the
 * JDBC driver; automatic installation and loading of extensions are switched off before the
 * database opens, and the configuration is locked, so that no query can turn them back on. The
 * engine refuses to start if either built-in extension is missing rather than let DuckDB try a
 * download.
 */
public final class DuckDbEngine implements SqlEngine, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DuckDbEngine.class);
  /** Extensions the report uses; all must be statically linked into the driver. */
  public static final List<String> REQUIRED_EXTENSIONS = List.of("json", "parquet");

  /**
   * The COPY options of every Parquet file the report writes: LZ4 (the format's LZ4_RAW), row
   * groups of 32,768 rows, no Bloom filters. Against DuckDB's defaults (snappy, 122,880-row
   * groups, a Bloom filter for every dictionary-encoded column) this takes the writer a third to
   * a half less CPU time for the same rows; readers still skip row groups by their statistics.
   * Against zstd at level 1 (the report's before), 10 M records' export is written and read back
   * by the analyses about 1 s sooner, for about a third more bytes (BENCHMARKS.md). The format's
   * version 2 encodings would give back the bytes, but Spark's vectorized reader refuses one of
   * them (BYTE_STREAM_SPLIT); LZ4_RAW is read by pyarrow, Spark, DuckDB and Polars.
   */
  public static final String PARQUET_OPTIONS =
      "FORMAT parquet, COMPRESSION lz4, ROW_GROUP_SIZE 32768, WRITE_BLOOM_FILTER false";

  private final DuckDBConnection connection;
  private final AtomicReference<Statement> running = new AtomicReference<>();

  private DuckDbEngine(DuckDBConnection connection) {
    this.connection = connection;
  }

  /** Opens the database, applies the settings and checks the built-in extensions. */
  public static DuckDbEngine open(EngineSettings settings) throws SQLException {
    try {
      Class.forName("org.duckdb.DuckDBDriver");
    } catch (ClassNotFoundException e) {
      throw new SQLException("the DuckDB JDBC driver is not on the class path", e);
    }
    Properties p = new Properties();
    // Set at open time, before anything could trigger an automatic load or install.
    p.setProperty("autoinstall_known_extensions", "false");
    p.setProperty("autoload_known_extensions", "false");
    p.setProperty("allow_community_extensions", "false");
    p.setProperty("extension_directory",
        settings.spillDirectory().resolve("no-extensions").toString());
    p.setProperty("threads", Integer.toString(settings.threads()));
    p.setProperty("temp_directory", settings.spillDirectory().toString());
    if (settings.memoryLimit() != null) {
      p.setProperty("memory_limit", settings.memoryLimit().trim());
    }
    // Row order within the Parquet export carries no meaning; not keeping it lets DuckDB write
    // in parallel.
    p.setProperty("preserve_insertion_order", "false");
    DuckDBConnection c = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:", p);
    DuckDbEngine engine = new DuckDbEngine(c);
    try {
      engine.checkExtensions();
      // Progress is polled for the stderr display; DuckDB must not print its own bar.
      engine.execute("SET enable_progress_bar = true");
      engine.execute("SET enable_progress_bar_print = false");
      engine.execute("SET lock_configuration = true");
    } catch (SQLException e) {
      engine.close();
      throw e;
    }
    return engine;
  }

  private void checkExtensions() throws SQLException {
    Set<String> builtIn = new HashSet<>();
    try (Statement s = connection.createStatement();
        ResultSet r = s.executeQuery("SELECT extension_name, loaded, install_mode"
            + " FROM duckdb_extensions()")) {
      while (r.next()) {
        String mode = r.getString(3);
        if (r.getBoolean(2) && mode != null && mode.startsWith("STATICALLY_LINKED")) {
          builtIn.add(r.getString(1));
        }
      }
    }
    for (String required : REQUIRED_EXTENSIONS) {
      if (!builtIn.contains(required)) {
        throw new SQLException("this DuckDB driver has no built-in '" + required
            + "' extension, and the report never downloads one; use a duckdb_jdbc build that"
            + " includes it (the Maven Central builds do)");
      }
    }
  }

  /** Extensions loaded now, with how they were installed (for diagnostics and tests). */
  public List<String[]> loadedExtensions() throws SQLException {
    return query("SELECT extension_name, install_mode FROM duckdb_extensions() WHERE loaded"
        + " ORDER BY 1", r -> new String[] {r.getString(1), r.getString(2)});
  }

  public String version() throws SQLException {
    return query("SELECT version()", r -> r.getString(1)).get(0);
  }

  @Override
  public void execute(String sql) throws SQLException {
    long start = System.nanoTime();
    try (Statement s = connection.createStatement()) {
      running.set(s);
      s.execute(sql);
    } finally {
      running.set(null);
      logTiming(start, sql);
    }
  }

  /** Each statement's wall time: at DEBUG with its first 300 characters, at TRACE in full. */
  private static void logTiming(long startNanos, String sql) {
    if (LOG.isTraceEnabled()) {
      LOG.trace("{} ms: {}", (System.nanoTime() - startNanos) / 1_000_000, sql);
    } else if (LOG.isDebugEnabled()) {
      LOG.debug("{} ms: {}", (System.nanoTime() - startNanos) / 1_000_000,
          sql.length() > 300 ? sql.substring(0, 300) + "..." : sql);
    }
  }

  /** Runs a statement that reports a row count (such as COPY) and returns the count. */
  public long update(String sql) throws SQLException {
    long start = System.nanoTime();
    try (Statement s = connection.createStatement()) {
      running.set(s);
      if (s.execute(sql)) {
        try (ResultSet r = s.getResultSet()) {
          return r.next() ? r.getLong(1) : 0;
        }
      }
      return Math.max(0, s.getLargeUpdateCount());
    } finally {
      running.set(null);
      logTiming(start, sql);
    }
  }

  @Override
  public SqlDialect dialect() {
    return DuckDbDialect.INSTANCE;
  }

  @Override
  public <T> List<T> query(String sql, RowMapper<T> mapper) throws SQLException {
    long start = System.nanoTime();
    List<T> rows = new ArrayList<>();
    try (Statement s = connection.createStatement()) {
      running.set(s);
      try (ResultSet r = s.executeQuery(sql)) {
        SqlRow row = new JdbcRow(r);
        while (r.next()) {
          rows.add(mapper.map(row));
        }
      }
    } finally {
      running.set(null);
      logTiming(start, sql);
    }
    return rows;
  }

  @Override
  public void createTable(String name, String select) throws SQLException {
    execute("CREATE OR REPLACE TEMP TABLE " + name + " AS " + select);
  }

  @Override
  public void createView(String name, String select) throws SQLException {
    execute("CREATE OR REPLACE TEMP VIEW " + name + " AS " + select);
  }

  @Override
  public void writeParquet(String select, java.nio.file.Path target) throws SQLException {
    execute("COPY (" + select + ") TO " + literal(target.toString()) + " (" + PARQUET_OPTIONS
        + ")");
  }

  /** A JDBC result row; arrays arrive as lists. */
  private record JdbcRow(ResultSet r) implements SqlRow {
    @Override
    public Object getObject(String column) throws SQLException {
      return r.getObject(column);
    }

    @Override
    public Object getObject(int position) throws SQLException {
      return r.getObject(position);
    }

    @Override
    public List<?> getList(String column) throws SQLException {
      java.sql.Array a = r.getArray(column);
      return a == null ? null : java.util.Arrays.asList((Object[]) a.getArray());
    }
  }

  /**
   * Polls the running statement's progress (0 to 1) for a progress display; does nothing if no
   * statement runs or the driver cannot tell.
   */
  @Override
  public void pollProgress(DoubleConsumer sink) {
    Statement s = running.get();
    if (s instanceof org.duckdb.DuckDBPreparedStatement d) {
      try {
        double percent = d.getQueryProgress().getPercentage();
        if (percent >= 0) {
          sink.accept(percent / 100.0);
        }
      } catch (SQLException | RuntimeException e) {
        LOG.trace("no query progress", e);
      }
    }
  }

  public Connection connection() {
    return connection;
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }

  /** A SQL string literal. */
  public static String literal(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  /** A SQL list of string literals. */
  public static String literalList(Collection<String> values) {
    StringJoiner j = new StringJoiner(", ", "[", "]");
    for (String v : values) {
      j.add(literal(v));
    }
    return j.toString();
  }

  /** A quoted SQL identifier. */
  public static String identifier(String s) {
    return "\"" + s.replace("\"", "\"\"") + "\"";
  }
}
