package io.ncclinspector.report.engine;

import io.ncclinspector.report.ReportOptions;
import java.nio.file.Path;
import java.sql.SQLException;

/**
 * Makes a {@link ReportEngine}. DuckDB's is built in; other engines (Apache Spark, in the module
 * {@code inspector-report-spark}) are found with {@link java.util.ServiceLoader} when their
 * module is on the class path.
 */
public interface ReportEngineProvider {
  /** The name {@code --engine} selects, in lower case. */
  String name();

  /**
   * Opens an engine for one run.
   *
   * @param staging a scratch directory inside the output directory; it may not exist yet (it is
   *     created before the import)
   */
  ReportEngine open(ReportOptions options, Path staging) throws SQLException;
}
