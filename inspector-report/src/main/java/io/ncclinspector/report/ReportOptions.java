package io.ncclinspector.report;

import io.ncclinspector.report.analysis.AnalysisOptions;
import io.ncclinspector.report.analysis.ClockSync;
import io.ncclinspector.report.analysis.SizeBucketing;
import io.ncclinspector.report.engine.Engines;
import io.ncclinspector.report.engine.duckdb.EngineSettings;
import io.ncclinspector.report.ingest.RecordImporter;
import io.ncclinspector.report.ingest.RecordSchema.ColumnSet;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What one report run does.
 *
 * @param inputs log directories or files, as given
 * @param outputDirectory where the report goes
 * @param analysis choices that change the figures
 * @param engine the engine that computes it: {@code duckdb} (built in) or {@code spark}
 * @param threads DuckDB worker threads; Spark's local-mode cores when no master is configured: 1
 *     to {@link #maxThreads()} (a thread count beyond the machine's processors would only make the
 *     engine start thousands of threads that compete for them)
 * @param memoryLimit DuckDB memory limit (e.g. {@code 8GB}; {@link EngineSettings#checkMemoryLimit}),
 *     or null for its default
 * @param percentileAccuracy Spark's {@code percentile_approx} accuracy (the rank error is at most
 *     1/accuracy of the group's size), or 0 for exact percentiles; DuckDB's are always exact
 * @param progress print progress on stderr for long runs
 * @param importer import tuning
 * @param recordColumns the columns of the records export: {@link ColumnSet#ALL} (the default)
 *     or {@link ColumnSet#CORE} (what the analyses read, and the labels of trust: faster)
 */
public record ReportOptions(List<String> inputs, Path outputDirectory, AnalysisOptions analysis,
    String engine, int threads, String memoryLimit, int percentileAccuracy, boolean progress,
    RecordImporter.Options importer, ColumnSet recordColumns) {

  public ReportOptions {
    inputs = List.copyOf(inputs);
    Objects.requireNonNull(outputDirectory, "outputDirectory");
    Objects.requireNonNull(analysis, "analysis");
    Objects.requireNonNull(importer, "importer");
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(recordColumns, "recordColumns");
    if (percentileAccuracy < 0) {
      throw new IllegalArgumentException("percentile accuracy must be 0 (exact) or positive");
    }
    if (inputs.isEmpty()) {
      throw new IllegalArgumentException("at least one log directory or file is needed");
    }
    if (threads < 1 || threads > maxThreads()) {
      throw new IllegalArgumentException("threads must be 1 to " + maxThreads()
          + " (the processors of this machine), got " + threads);
    }
    EngineSettings.checkMemoryLimit(memoryLimit);
  }

  /** The most threads a report may use: the processors of this machine. */
  public static int maxThreads() {
    return Math.max(1, Runtime.getRuntime().availableProcessors());
  }

  /** Spark's own default for {@code percentile_approx}: rank error at most 0.01 %. */
  public static final int DEFAULT_PERCENTILE_ACCURACY = 10_000;

  public static Builder builder(Path outputDirectory) {
    return new Builder(outputDirectory);
  }

  /** Defaults: every core, DuckDB's memory limit, progress on, the analysis defaults. */
  public static final class Builder {
    private final Path outputDirectory;
    private List<String> inputs = List.of();
    private SizeBucketing sizeBucketing = SizeBucketing.POW2;
    private boolean allTiming;
    private ClockSync clockSync = ClockSync.AUTO;
    private double lateThresholdMicros = AnalysisOptions.defaults().lateThresholdMicros();
    private int worstCollectives = AnalysisOptions.defaults().worstCollectives();
    private int threads = maxThreads();
    private String memoryLimit;
    private String engine = Engines.DUCKDB;
    private int percentileAccuracy = DEFAULT_PERCENTILE_ACCURACY;
    private boolean progress = true;
    private RecordImporter.Options importer = RecordImporter.Options.defaults();
    private ColumnSet recordColumns = ColumnSet.ALL;

    private Builder(Path outputDirectory) {
      this.outputDirectory = outputDirectory;
    }

    public Builder inputs(List<String> v) {
      inputs = v;
      return this;
    }

    public Builder inputs(String... v) {
      return inputs(List.of(v));
    }

    public Builder sizeBucketing(SizeBucketing v) {
      sizeBucketing = v;
      return this;
    }

    public Builder allTiming(boolean v) {
      allTiming = v;
      return this;
    }

    public Builder clockSync(ClockSync v) {
      clockSync = v;
      return this;
    }

    public Builder lateThresholdMicros(double v) {
      lateThresholdMicros = v;
      return this;
    }

    public Builder worstCollectives(int v) {
      worstCollectives = v;
      return this;
    }

    public Builder threads(int v) {
      threads = v;
      return this;
    }

    public Builder engine(String v) {
      engine = v;
      return this;
    }

    public Builder percentileAccuracy(int v) {
      percentileAccuracy = v;
      return this;
    }

    public Builder memoryLimit(String v) {
      memoryLimit = v;
      return this;
    }

    public Builder progress(boolean v) {
      progress = v;
      return this;
    }

    public Builder importer(RecordImporter.Options v) {
      importer = v;
      return this;
    }

    /** The columns of the records export: {@link ColumnSet#ALL} unless set. */
    public Builder recordColumns(ColumnSet v) {
      recordColumns = v;
      return this;
    }

    public ReportOptions build() {
      return new ReportOptions(inputs, outputDirectory, new AnalysisOptions(sizeBucketing,
          allTiming, clockSync, lateThresholdMicros, worstCollectives), engine, threads,
          memoryLimit, percentileAccuracy, progress, importer, recordColumns);
    }
  }
}
