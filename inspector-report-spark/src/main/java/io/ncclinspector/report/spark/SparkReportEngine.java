package io.ncclinspector.report.spark;

import io.ncclinspector.report.Progress;
import io.ncclinspector.report.ReportOptions;
import io.ncclinspector.report.engine.EngineInfo;
import io.ncclinspector.report.engine.ReportEngine;
import io.ncclinspector.report.engine.SqlEngine;
import io.ncclinspector.report.ingest.ImportResult;
import io.ncclinspector.report.input.InputSet;
import io.ncclinspector.report.input.LogDiscovery;
import io.ncclinspector.report.input.LogFile;
import io.ncclinspector.report.input.SkippedInput;
import io.ncclinspector.report.output.OutputFiles;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * The report on Apache Spark: the same discovery rules, line checks, export schema, analyses and
 * outputs as the DuckDB engine, with the reading, parsing and SQL distributed over the cluster
 * (or the cores of this machine in local mode). Inputs may be local paths (which every executor
 * must see: local mode, or a file system all nodes mount) or Hadoop URIs (HDFS, S3 ...).
 */
final class SparkReportEngine implements ReportEngine {
  private final SparkSessions.Started started;
  private final SparkSqlEngine sql;
  private final ReportOptions options;

  SparkReportEngine(SparkSessions.Started started, ReportOptions options) {
    this.started = started;
    this.options = options;
    this.sql = new SparkSqlEngine(started.session(),
        new SparkDialect(options.percentileAccuracy()));
  }

  @Override
  public InputSet discover(List<String> arguments, Path outputDirectory) throws IOException {
    List<String> local = new ArrayList<>();
    List<String> remote = new ArrayList<>();
    for (String a : arguments) {
      if (HadoopLogDiscovery.isRemote(a)) {
        remote.add(a);
      } else {
        local.add(a.startsWith("file:") ? Path.of(URI.create(a)).toString() : a);
      }
    }
    List<LogFile> logs = new ArrayList<>();
    List<SkippedInput> skipped = new ArrayList<>();
    if (!local.isEmpty()) {
      InputSet s = LogDiscovery.discover(local, outputDirectory);
      logs.addAll(s.logs());
      skipped.addAll(s.skipped());
    }
    if (!remote.isEmpty()) {
      InputSet s = HadoopLogDiscovery.discover(remote,
          started.session().sparkContext().hadoopConfiguration());
      logs.addAll(s.logs());
      skipped.addAll(s.skipped());
    }
    logs.sort(Comparator.comparing(LogFile::displayName));
    return new InputSet(logs, skipped);
  }

  @Override
  public ImportResult importRecords(InputSet inputs, Path outputDirectory, Path staging,
      Progress progress) throws SQLException, IOException {
    return new SparkImporter(started.session(), options.importer(), options.recordColumns())
        .run(inputs.logs(), outputDirectory.resolve(OutputFiles.RECORDS_DIR), progress);
  }

  @Override
  public SqlEngine sql() {
    return sql;
  }

  @Override
  public EngineInfo info() {
    SparkSession s = started.session();
    List<String> settings = new ArrayList<>();
    settings.add("master " + s.sparkContext().master());
    settings.add("session " + started.how());
    settings.add("default parallelism " + s.sparkContext().defaultParallelism());
    settings.add("spark.sql.shuffle.partitions "
        + s.conf().get("spark.sql.shuffle.partitions"));
    return new EngineInfo("Apache Spark", s.version(), sql.dialect().percentileMethod(),
        List.of(), settings);
  }

  @Override
  public void close() {
    sql.releaseTables();
    if (started.owned()) {
      started.session().stop();
    }
  }
}
