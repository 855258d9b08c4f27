package io.ncclinspector.report.engine.duckdb;

import io.ncclinspector.report.Progress;
import io.ncclinspector.report.ReportOptions;
import io.ncclinspector.report.engine.EngineInfo;
import io.ncclinspector.report.engine.ReportEngine;
import io.ncclinspector.report.engine.ReportEngineProvider;
import io.ncclinspector.report.engine.SqlEngine;
import io.ncclinspector.report.ingest.ImportResult;
import io.ncclinspector.report.ingest.RecordImporter;
import io.ncclinspector.report.ingest.RecordSchema;
import io.ncclinspector.report.input.InputSet;
import io.ncclinspector.report.input.LogDiscovery;
import io.ncclinspector.report.output.OutputFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.Collectors;

/** The built-in engine: the embedded DuckDB, on this machine. */
public final class DuckDbReportEngine implements ReportEngine {
  /** The provider {@code --engine duckdb} selects. */
  public static final class Provider implements ReportEngineProvider {
    @Override
    public String name() {
      return "duckdb";
    }

    @Override
    public ReportEngine open(ReportOptions options, Path staging) throws SQLException {
      return new DuckDbReportEngine(DuckDbEngine.open(new EngineSettings(options.threads(),
          options.memoryLimit(), staging.resolve("spill"))), options);
    }
  }

  private final DuckDbEngine engine;
  private final ReportOptions options;

  private DuckDbReportEngine(DuckDbEngine engine, ReportOptions options) {
    this.engine = engine;
    this.options = options;
  }

  @Override
  public InputSet discover(List<String> arguments, Path outputDirectory) throws IOException {
    return LogDiscovery.discover(arguments, outputDirectory);
  }

  @Override
  public ImportResult importRecords(InputSet inputs, Path outputDirectory, Path staging,
      Progress progress) throws SQLException, IOException {
    ImportResult imported = new RecordImporter(engine,
        outputDirectory.resolve(OutputFiles.RECORDS_DIR), staging, progress, options.importer(),
        options.threads(), options.recordColumns())
        .run(inputs.logs());
    defineRecords(imported.parts());
    return imported;
  }

  /** The relation all queries read: the export's parts, or an empty table of its columns. */
  private void defineRecords(List<Path> parts) throws SQLException {
    if (parts.isEmpty()) {
      String columns = options.recordColumns().columns().stream()
          .map(c -> "CAST(NULL AS " + c.type() + ") AS " + DuckDbEngine.identifier(c.name()))
          .collect(Collectors.joining(", "));
      engine.createView("records", "SELECT " + columns + " WHERE false");
      return;
    }
    engine.createView("records", "SELECT * FROM read_parquet("
        + DuckDbEngine.literalList(parts.stream().map(Path::toString).toList()) + ")");
  }

  @Override
  public SqlEngine sql() {
    return engine;
  }

  @Override
  public EngineInfo info() throws SQLException {
    List<String> extensions = engine.loadedExtensions().stream()
        .map(e -> e[0] + " (" + e[1] + ")").toList();
    return new EngineInfo("DuckDB", engine.version(), engine.dialect().percentileMethod(),
        extensions, List.of("threads " + options.threads(), "memory limit "
            + (options.memoryLimit() == null ? "DuckDB's default" : options.memoryLimit())));
  }

  @Override
  public void close() throws SQLException {
    engine.close();
  }
}
