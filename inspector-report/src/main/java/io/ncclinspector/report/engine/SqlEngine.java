package io.ncclinspector.report.engine;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.function.DoubleConsumer;

/**
 * What the analyses need from an engine: statements, queries, named intermediate results and
 * Parquet output. Failures are {@link SQLException}s whichever the engine.
 */
public interface SqlEngine {
  SqlDialect dialect();

  void execute(String sql) throws SQLException;

  <T> List<T> query(String sql, RowMapper<T> mapper) throws SQLException;

  /**
   * Computes {@code select} once and keeps the result under {@code name}, replacing an earlier
   * one: the analyses read their intermediate tables several times.
   */
  void createTable(String name, String select) throws SQLException;

  /**
   * Like {@link #createTable}, for a result known to be small (per communicator, rank or key, not
   * per record or collective): an engine may keep it on the driver rather than distributed.
   */
  default void createSmallTable(String name, String select) throws SQLException {
    createTable(name, select);
  }

  /** Names {@code select} as {@code name} without computing it; each use recomputes it. */
  void createView(String name, String select) throws SQLException;

  /**
   * Writes the result of {@code select} as compressed Parquet at {@code target}: one file
   * for DuckDB, a directory of part files for Spark (both read as one table by Parquet readers).
   */
  void writeParquet(String select, Path target) throws SQLException;

  /**
   * Polls the running statement's progress (0 to 1) for a progress display; does nothing if no
   * statement runs or the engine cannot tell.
   */
  void pollProgress(DoubleConsumer sink);
}
