package io.ncclinspector.report.spark;

import io.ncclinspector.report.Progress;
import io.ncclinspector.report.ingest.FileImport;
import io.ncclinspector.report.ingest.ImportResult;
import io.ncclinspector.report.ingest.JsonLayout;
import io.ncclinspector.report.ingest.ParquetInputs;
import io.ncclinspector.report.ingest.RecordImporter;
import io.ncclinspector.report.ingest.RecordSchema;
import io.ncclinspector.report.input.Compression;
import io.ncclinspector.report.input.FileDiagnosis;
import io.ncclinspector.report.input.LogFile;
import io.ncclinspector.report.input.RejectedLine;
import io.ncclinspector.report.input.SkippedInput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.CollectionAccumulator;

/**
 * Imports log files into the Parquet export with Spark, in one pass: the executors read the files
 * line by line ({@link LineSource}), Spark's {@code from_json} parses the usable lines with the
 * report's {@link JsonLayout}, and the same SQL as DuckDB's import ({@link RecordSchema}) turns
 * them into export rows, written as zstd Parquet into the records directory.
 *
 * <p>The line check refuses every field whose JSON value is of another type than the field's, as
 * DuckDB's import does ({@link JsonLayout.Reading}), so Spark's parser is only given lines it
 * converts. Should one still fail the export's validity rule, it is counted as unusable, with a
 * notice, but not listed (its number is not known after the parse).
 */
final class SparkImporter {
  private final SparkSession spark;
  private final RecordImporter.Options options;
  private final RecordSchema.ColumnSet set;

  SparkImporter(SparkSession spark, RecordImporter.Options options, RecordSchema.ColumnSet set) {
    this.spark = spark;
    this.options = options;
    this.set = set;
  }

  ImportResult run(List<LogFile> inputs, Path recordsDir, Progress progress)
      throws SQLException, IOException {
    Files.createDirectories(recordsDir);
    List<LogFile> logs = inputs.stream().filter(f -> f.compression() != Compression.PARQUET)
        .toList();
    ParquetRead parquet = readParquet(inputs.stream()
        .filter(f -> f.compression() == Compression.PARQUET).toList());
    progress.stage("importing " + logs.size() + " files", () -> status(spark));
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    CollectionAccumulator<FileDiagnosis> outcomes =
        spark.sparkContext().collectionAccumulator("nccl-inspector files read");
    List<InputFile> files = logs.stream().map(InputFile::of)
        .sorted(Comparator.comparingLong(InputFile::sizeBytes).reversed()).toList();
    // One partition per file (the big ones first): a job's logs are one file per process,
    // plenty of parallelism, and line numbers stay exact.
    JavaRDD<Row> lines = jsc.parallelize(files, Math.max(1, files.size()))
        .mapPartitions(new LineSource(new HadoopConf(spark.sparkContext().hadoopConfiguration()),
            options.maxListedPerFile(), outcomes));
    StructType lineSchema = new StructType()
        .add("source_file", DataTypes.StringType, false)
        .add("line", DataTypes.BinaryType, false);
    spark.createDataFrame(lines, lineSchema).createOrReplaceTempView("import_lines");

    String columns = set.columns().stream().map(RecordSchema.Column::name)
        .collect(Collectors.joining(", "));
    String parsed = "SELECT " + RecordSchema.finalColumns("r_file", set) + ",\n  "
        + RecordSchema.VALIDITY + " AS valid\nFROM (" + RecordSchema.raw("source_file",
            JsonLayout.Reading.TYPED, "SELECT source_file, j.header, j.metadata, j.coll_perf,"
            + " j.p2p_perf FROM (SELECT source_file, from_json(CAST(line AS STRING), '"
            + JsonLayout.sparkSchema() + "') AS j FROM import_lines) p") + ") r";
    String export = "SELECT " + columns + " FROM (" + parsed + ") x WHERE valid";
    SparkSqlEngine.run(export, () -> {
      Dataset<Row> rows = spark.sql(export);
      if (parquet.records() != null) {
        rows = rows.unionByName(parquet.records());
      }
      rows.write().mode(SaveMode.Append).option("compression", "zstd")
          .parquet(recordsDir.toUri().toString());
      return null;
    });

    List<Path> parts;
    try (Stream<Path> s = Files.list(recordsDir)) {
      parts = s.filter(p -> p.getFileName().toString().startsWith("part-")
          && p.getFileName().toString().endsWith(".parquet")).sorted().toList();
    }
    List<FileDiagnosis> read = outcomes.value();
    long usableLines = read.stream().mapToLong(FileDiagnosis::records).sum();
    if (parts.isEmpty() && usableLines > 0 && !spark.sparkContext().isLocal()) {
      // The executors wrote their part files, but on a file system the driver does not see.
      throw new IOException(String.format(Locale.ROOT, "the executors read %d usable lines, but"
          + " none of the Parquet files they wrote is in %s: --out must be a directory that the"
          + " driver and every executor see at the same path (a shared file system)",
          usableLines, recordsDir));
    }
    Dataset<Row> records = parts.isEmpty()
        ? spark.createDataFrame(List.of(), spark.sql(export).schema())
        : spark.read().parquet(parts.stream().map(p -> p.toUri().toString())
            .toArray(String[]::new));
    records.createOrReplaceTempView("records");

    progress.stage("counting records per file");
    Map<String, Long> perFile = new HashMap<>();
    SparkSqlEngine.run("count per file", () -> {
      for (Row r : spark.sql("SELECT source_file, count(*) AS n FROM records GROUP BY 1")
          .collectAsList()) {
        perFile.put(r.getString(0), r.getLong(1));
      }
      return null;
    });
    return result(inputs, read, perFile, parts, parquet);
  }

  /** The usable Parquet inputs as export rows, the files passed over, and records per file. */
  private record ParquetRead(Dataset<Row> records, List<SkippedInput> skipped,
      Map<String, Long> perFile) {}

  /**
   * Reads the report's own Parquet export back (see {@code ParquetInputs} for DuckDB): files with
   * the core columns (either set's export) are used, a column of this export that none of them
   * has as null; others are passed over with the reason.
   */
  private ParquetRead readParquet(List<LogFile> files) throws SQLException {
    List<SkippedInput> skipped = new ArrayList<>();
    List<String> usable = new ArrayList<>();
    java.util.Set<String> present = new java.util.HashSet<>();
    for (LogFile f : files) {
      String uri = InputFile.of(f).uri();
      try {
        java.util.Set<String> names = new java.util.HashSet<>(List.of(
            spark.read().parquet(uri).schema().fieldNames()));
        List<String> missing = ParquetInputs.missingColumns(names);
        if (missing.isEmpty()) {
          usable.add(uri);
          present.addAll(names);
        } else {
          skipped.add(new SkippedInput(f.displayName(), ParquetInputs.notAnExport(missing)));
        }
      } catch (Exception e) { // Spark's AnalysisException is checked in Java's terms
        skipped.add(new SkippedInput(f.displayName(), "cannot be read as Parquet: "
            + e.getMessage()));
      }
    }
    if (usable.isEmpty()) {
      return new ParquetRead(null, skipped, Map.of());
    }
    String[] paths = usable.toArray(String[]::new);
    Dataset<Row> records = spark.read().option("mergeSchema", "true").parquet(paths)
        .selectExpr(set.columns().stream().map(c -> "CAST(" + (present.contains(c.name())
            ? "`" + c.name() + "`" : "NULL") + " AS " + sparkType(c.type()) + ") AS `" + c.name()
            + "`").toArray(String[]::new));
    Map<String, Long> perFile = new HashMap<>();
    SparkSqlEngine.run("count per Parquet input", () -> {
      for (Row r : spark.read().parquet(paths).groupBy(org.apache.spark.sql.functions
          .input_file_name()).count().collectAsList()) {
        perFile.put(localPath(r.getString(0)), r.getLong(1));
      }
      return null;
    });
    return new ParquetRead(records, skipped, perFile);
  }

  /** A file URI as a comparable path (Spark reports them encoded). */
  private static String localPath(String uri) {
    return new org.apache.hadoop.fs.Path(uri).toUri().getPath();
  }

  /** Spark's name of an export column type. */
  static String sparkType(String duckDbType) {
    return switch (duckDbType) {
      case "VARCHAR" -> "STRING";
      case "VARCHAR[]" -> "ARRAY<STRING>";
      case "INTEGER" -> "INT";
      default -> duckDbType;
    };
  }

  private static String status(SparkSession spark) {
    java.util.OptionalDouble p = SparkSqlEngine.progress(spark);
    return p.isPresent() ? String.format(Locale.ROOT, "%.0f%% of the tasks", 100 * p.getAsDouble())
        : "";
  }

  private static ImportResult result(List<LogFile> logs, List<FileDiagnosis> reported,
      Map<String, Long> perFile, List<Path> parts, ParquetRead parquet) {
    // A retried task reports its files again: the last report of a file counts.
    Map<String, FileDiagnosis> byFile = new LinkedHashMap<>();
    reported.forEach(d -> byFile.put(d.file(), d));
    List<FileImport> files = new ArrayList<>();
    List<RejectedLine> listed = new ArrayList<>();
    List<String> notices = new ArrayList<>();
    long records = 0;
    long rejected = 0;
    java.util.Set<String> skippedParquet = new java.util.HashSet<>();
    parquet.skipped().forEach(s -> skippedParquet.add(s.displayName()));
    for (LogFile f : logs) {
      if (f.compression() == Compression.PARQUET) {
        if (!skippedParquet.contains(f.displayName())) {
          long n = parquet.perFile().getOrDefault(localPath(InputFile.of(f).uri()), 0L);
          records += n;
          files.add(new FileImport(f.displayName(), f.location(), f.compression(), f.sizeBytes(),
              n, 0, 0, null, false, false));
        }
        continue;
      }
      FileDiagnosis d = byFile.get(f.displayName());
      if (d == null) {
        d = new FileDiagnosis(f.displayName(), 0, 0, List.of(),
            "not read: no executor reported on this file", true);
      }
      long kept = perFile.getOrDefault(f.displayName(), 0L);
      long unconvertible = Math.max(0, d.records() - kept);
      if (unconvertible > 0) {
        notices.add(String.format(Locale.ROOT, "%s: %d lines passed the line check but Spark's"
            + " JSON reader could not convert a required field; they are counted as unusable",
            f.displayName(),
            unconvertible));
      }
      records += kept;
      rejected += d.rejected() + unconvertible;
      listed.addAll(d.listed());
      files.add(new FileImport(f.displayName(), f.location(), f.compression(), f.sizeBytes(),
          kept, d.rejected() + unconvertible, d.listed().size(), d.damage(), d.corrupt(), false));
    }
    listed.sort(Comparator.comparing(RejectedLine::file).thenComparingLong(RejectedLine::line));
    return new ImportResult(records, rejected, files, listed, parts, notices, parquet.skipped());
  }
}
