package io.ncclinspector.report.engine;

import io.ncclinspector.report.Progress;
import io.ncclinspector.report.ingest.ImportResult;
import io.ncclinspector.report.input.InputSet;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;

/**
 * One engine's part of a report run: finding the logs, importing them into the Parquet export,
 * and running the analyses' SQL over the relation {@code records} the import defines. The
 * analyses and outputs are the same for every engine.
 */
public interface ReportEngine extends AutoCloseable {
  /**
   * Finds the log files under the input arguments (the rules of {@code LogDiscovery}).
   *
   * @param outputDirectory never searched (the report's own output)
   */
  InputSet discover(List<String> arguments, Path outputDirectory) throws IOException;

  /**
   * Imports the files into {@code outputDirectory/records} and defines the relation {@code
   * records} over the export, with the columns of {@code RecordSchema}.
   *
   * @param staging an existing scratch directory inside the output directory, removed after
   *     the run
   */
  ImportResult importRecords(InputSet inputs, Path outputDirectory, Path staging,
      Progress progress) throws SQLException, IOException;

  SqlEngine sql();

  EngineInfo info() throws SQLException;

  @Override
  void close() throws SQLException;
}
