package io.ncclinspector.report.spark;

import io.ncclinspector.report.engine.RowMapper;
import io.ncclinspector.report.engine.SqlDialect;
import io.ncclinspector.report.engine.SqlEngine;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.DoubleConsumer;
import org.apache.spark.SparkStageInfo;
import org.apache.spark.SparkStatusTracker;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spark SQL as the analyses' {@link SqlEngine}. Intermediate tables are cached temporary views
 * ({@code CACHE TABLE ... AS}), computed once and kept in executor memory (spilling to disk), and
 * dropped when the engine closes; results are collected to the driver, which is fine for the
 * analyses' small results.
 */
final class SparkSqlEngine implements SqlEngine {
  private static final Logger LOG = LoggerFactory.getLogger(SparkSqlEngine.class);

  /** The most rows {@link #createSmallTable} keeps on the driver. */
  static final int SMALL_ROWS = 200_000;

  private final SparkSession spark;
  private final SparkDialect dialect;
  private final Set<String> cached = new LinkedHashSet<>();

  SparkSqlEngine(SparkSession spark, SparkDialect dialect) {
    this.spark = spark;
    this.dialect = dialect;
  }

  SparkSession session() {
    return spark;
  }

  @Override
  public SqlDialect dialect() {
    return dialect;
  }

  @Override
  public void execute(String sql) throws SQLException {
    run(sql, () -> spark.sql(sql).collect());
  }

  @Override
  public <T> List<T> query(String sql, RowMapper<T> mapper) throws SQLException {
    List<Row> rows = run(sql, () -> {
      long t0 = System.nanoTime();
      org.apache.spark.sql.Dataset<Row> df = spark.sql(sql);
      long t1 = System.nanoTime();
      df.queryExecution().executedPlan();
      long t2 = System.nanoTime();
      List<Row> r = df.collectAsList();
      if (LOG.isDebugEnabled()) {
        LOG.debug("analysis {} ms, planning {} ms, execution {} ms", (t1 - t0) / 1_000_000,
            (t2 - t1) / 1_000_000, (System.nanoTime() - t2) / 1_000_000);
      }
      return r;
    });
    List<T> out = new ArrayList<>(rows.size());
    for (Row r : rows) {
      out.add(mapper.map(new SparkRow(r)));
    }
    return out;
  }

  @Override
  public void createTable(String name, String select) throws SQLException {
    drop(name);
    run(select, () -> spark.sql("CACHE TABLE " + name + " AS " + select));
    cached.add(name);
  }

  /**
   * A small table is collected to the driver and queried from there (a local relation: no
   * cache, no shuffle to read it, joined by broadcast), which saves most of Spark's per-query
   * overhead on the analyses' many small tables. One that turns out larger than {@value
   * #SMALL_ROWS} rows is cached on the executors instead.
   */
  @Override
  public void createSmallTable(String name, String select) throws SQLException {
    drop(name);
    boolean local = run(select, () -> {
      org.apache.spark.sql.Dataset<Row> df = spark.sql(select);
      List<Row> rows = df.limit(SMALL_ROWS + 1).collectAsList();
      if (rows.size() > SMALL_ROWS) {
        return false;
      }
      spark.createDataFrame(rows, df.schema()).createOrReplaceTempView(name);
      return true;
    });
    if (!local) {
      createTable(name, select);
    }
  }

  @Override
  public void createView(String name, String select) throws SQLException {
    drop(name);
    run(select, () -> spark.sql("CREATE OR REPLACE TEMPORARY VIEW " + name + " AS " + select));
  }

  private void drop(String name) throws SQLException {
    if (cached.remove(name)) {
      run(name, () -> spark.sql("UNCACHE TABLE IF EXISTS " + name));
    }
    run(name, () -> spark.sql("DROP VIEW IF EXISTS " + name));
  }

  @Override
  public void writeParquet(String select, Path target) throws SQLException {
    run(select, () -> {
      spark.sql(select).write().mode(SaveMode.Overwrite).option("compression", "zstd")
          .parquet(target.toUri().toString());
      return null;
    });
  }

  /** Drops the cached tables. */
  void releaseTables() {
    for (String name : List.copyOf(cached)) {
      try {
        drop(name);
      } catch (SQLException e) {
        LOG.debug("could not drop {}", name, e);
      }
    }
  }

  @Override
  public void pollProgress(DoubleConsumer sink) {
    progress(spark).ifPresent(sink::accept);
  }

  /** Completed tasks of the running stages, as a fraction, if any stage runs. */
  static java.util.OptionalDouble progress(SparkSession spark) {
    SparkStatusTracker t = spark.sparkContext().statusTracker();
    long done = 0;
    long total = 0;
    for (int id : t.getActiveStageIds()) {
      scala.Option<SparkStageInfo> info = t.getStageInfo(id);
      if (info.isDefined()) {
        done += info.get().numCompletedTasks();
        total += info.get().numTasks();
      }
    }
    return total == 0 ? java.util.OptionalDouble.empty()
        : java.util.OptionalDouble.of((double) done / total);
  }

  /** An action whose failures become {@link SQLException}s naming the statement. */
  @FunctionalInterface
  interface Action<T> {
    T run() throws Exception;
  }

  static <T> T run(String sql, Action<T> action) throws SQLException {
    long start = System.nanoTime();
    try {
      return action.run();
    } catch (Exception e) {
      String text = sql.length() > 300 ? sql.substring(0, 300) + "..." : sql;
      throw new SQLException(firstLine(e) + " [in: " + text + "]", e);
    } finally {
      if (LOG.isDebugEnabled()) {
        LOG.debug("{} ms: {}", (System.nanoTime() - start) / 1_000_000,
            sql.length() > 300 ? sql.substring(0, 300) + "..." : sql);
      }
    }
  }

  private static String firstLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
