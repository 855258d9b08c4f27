package io.ncclinspector.report.ingest;

import io.ncclinspector.format.RecordField;
import io.ncclinspector.report.Progress;
import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.input.Compression;
import io.ncclinspector.report.input.FileDiagnosis;
import io.ncclinspector.report.input.InputPrecheck;
import io.ncclinspector.report.input.LineReader;
import io.ncclinspector.report.input.LogFile;
import io.ncclinspector.report.input.LogFileScanner;
import io.ncclinspector.report.input.RejectedLine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Imports log files into the Parquet export, of the columns asked for ({@link
 * RecordSchema.ColumnSet}).
 *
 * <p>The fast path is DuckDB's own JSON reader, multi-threaded and in C++, which turns a batch of
 * files straight into Parquet ({@code COPY ... TO}) without materialising a table. Clean input is
 * written in one pass, as it is read, and any unusable row stops the statement. The batch is then
 * done again, and so is every later batch, the careful way: every row carries whether it is a
 * usable record, the unusable ones go to a separate partition (about a tenth more work), and only
 * the files that have any are then read again, line by line, by {@link LogFileScanner}, which
 * names each bad line with its number and reason. At most one batch is read twice. A file
 * DuckDB cannot read at all (a corrupt gzip stream, for
 * instance) makes its batch fail; the batch's files are then probed one by one, the broken ones
 * are salvaged line by line into clean copies, and the batch is run again.
 *
 * <p>DuckDB's gzip reader checks neither CRCs nor trailers, and stops quietly where a file is cut
 * at a member boundary; every gzip file is therefore read through once with the checked reader
 * first ({@link InputPrecheck}, in parallel), and the damaged ones are salvaged line by line,
 * which keeps the records before the damage and says where and why reading stopped.
 *
 * <p>That first read also screens every local file's lines ({@code LineScreen}): DuckDB reads a
 * file whose every line is a usable record in the plain form with its typed reader ({@link
 * JsonLayout.Reading#TYPED}), which gives the same rows as the checked reading ({@link
 * JsonLayout.Reading#JSON_TEXT}) at about two thirds of the cost; the other files are read the
 * checked way. The typed reader is told of only the fields the screen saw the files' lines hold
 * (a log without a network breakdown holds about a third of the format's fields): each field it
 * is told of costs it work on every line, present or not, and the others are nulls all the same.
 */
public final class RecordImporter {
  private static final Logger LOG = LoggerFactory.getLogger(RecordImporter.class);
  /** The error that stops a batch written in one pass when it meets an unusable row. */
  static final String UNUSABLE_ROW = "nccl-inspector: unusable row";
  /** Gzip files count this many times their size when batches are filled. */
  private static final int GZIP_WEIGHT = 6;

  /**
   * Tuning.
   *
   * @param batchBytes input bytes (gzip weighted) per DuckDB statement: bounds the work redone
   *     when a batch fails and sets the granularity of progress
   * @param maxFilesPerBatch bound on the statement's length
   * @param maxListedPerFile rejected lines listed per file
   */
  public record Options(long batchBytes, int maxFilesPerBatch, int maxListedPerFile) {
    public static Options defaults() {
      return new Options(2L << 30, 2000, 1000);
    }
  }

  private final DuckDbEngine engine;
  private final Path recordsDir;
  private final Path stagingDir;
  private final Progress progress;
  private final Options options;
  private final int threads;
  private final RecordSchema.ColumnSet columns;
  private final AtomicLong bytesDone = new AtomicLong();
  private volatile long bytesTotal;
  private volatile long currentBatchBytes;
  private volatile String batchLabel = "";
  private int salvageCounter;
  /** Whether batches are written with an unusable-row partition (after one had such rows). */
  private boolean partitioned;
  /** Whether the closed text columns are written as ENUMs ({@link #enumCasts}). */
  private boolean enums = true;
  /** Their values ({@link RecordSchema#CLOSED_TEXT}; a test may give others). */
  private Map<String, List<String>> closedText = RecordSchema.CLOSED_TEXT;
  /**
   * Display names of the files the first read's screen passed, read with the typed reader, each
   * with the fields its lines hold: the reader is told of those only.
   */
  private Map<String, Set<String>> screened = new HashMap<>();

  /**
   * @param threads threads for the first read of the files (the engine's)
   * @param columns the export's columns
   */
  public RecordImporter(DuckDbEngine engine, Path recordsDir, Path stagingDir, Progress progress,
      Options options, int threads, RecordSchema.ColumnSet columns) {
    this.engine = engine;
    this.columns = columns;
    this.recordsDir = recordsDir;
    this.stagingDir = stagingDir;
    this.progress = progress;
    this.options = options;
    this.threads = threads;
  }

  /** For the tests: other lists of the closed text columns' values. */
  RecordImporter closedText(Map<String, List<String>> lists) {
    this.closedText = lists;
    return this;
  }

  /** For the tests: whether the last batch was written with the ENUM casts. */
  boolean wroteEnums() {
    return enums;
  }

  /** Imports the files; the export's parts are written to the records directory. */
  public ImportResult run(List<LogFile> inputs) throws SQLException, IOException {
    Files.createDirectories(recordsDir);
    List<LogFile> files = inputs.stream().filter(f -> f.compression() != Compression.PARQUET)
        .toList();
    ParquetInputs.Result fromParquet = ParquetInputs.copy(engine, inputs.stream()
        .filter(f -> f.compression() == Compression.PARQUET).toList(), recordsDir, columns);
    Files.createDirectories(stagingDir);
    bytesTotal = files.stream().mapToLong(f -> weight(f)).sum();
    progress.stage("importing " + files.size() + " files", this::status);

    Map<String, FileDiagnosis> diagnoses = new LinkedHashMap<>();
    Map<String, Path> salvaged = new HashMap<>(); // display name -> clean copy
    List<String> notices = new ArrayList<>();
    long start = System.nanoTime();
    salvageUnsafePaths(files, salvaged, diagnoses);
    precheck(files, salvaged, diagnoses);
    start = phase("reading ahead, checking and salvaging", start);

    Map<String, Long> invalidRows = new HashMap<>();
    List<Path> parts = new ArrayList<>();
    copyBatches(files, salvaged, diagnoses, parts, invalidRows);
    start = phase("copying " + bytes(bytesTotal) + " into Parquet", start);
    locateUnusableLines(files, invalidRows, diagnoses, notices);
    start = phase("locating unusable lines", start);
    ImportResult result = importResult(inputs, fromParquet, diagnoses, salvaged, invalidRows,
        parts, notices);
    phase("counting records per file", start);
    return result;
  }

  /** Logs how long an import phase took (at DEBUG); returns the time it ended. */
  private static long phase(String name, long startNanos) {
    long now = System.nanoTime();
    LOG.debug("import phase: {}: {} ms", name, (now - startNanos) / 1_000_000);
    return now;
  }

  /** Salvages the files whose path the engine cannot be given as it is. */
  private void salvageUnsafePaths(List<LogFile> files, Map<String, Path> salvaged,
      Map<String, FileDiagnosis> diagnoses) throws IOException {
    for (LogFile f : files) {
      if (!f.engineSafePath()) {
        salvage(f, salvaged, diagnoses);
      }
    }
  }

  /**
   * Reads the files not yet salvaged once ({@link InputPrecheck}): salvages the damaged gzip files
   * and notes the files the screen passed.
   */
  private void precheck(List<LogFile> files, Map<String, Path> salvaged,
      Map<String, FileDiagnosis> diagnoses) throws IOException {
    List<LogFile> unchecked = files.stream().filter(f -> !salvaged.containsKey(f.displayName()))
        .toList();
    if (unchecked.isEmpty()) {
      return;
    }
    progress.stage("reading " + unchecked.size() + " files ahead");
    InputPrecheck.Result read = InputPrecheck.run(unchecked, threads);
    for (LogFile f : read.damaged()) {
      salvage(f, salvaged, diagnoses);
    }
    screened = new HashMap<>(read.screened());
    LOG.debug("the screen passed {} of {} files (read with the typed reader)", screened.size(),
        unchecked.size());
  }

  /**
   * Copies the files into the export, batch by batch: adds each batch's parts to {@code parts}
   * and its unusable rows per file to {@code invalidRows}.
   */
  private void copyBatches(List<LogFile> files, Map<String, Path> salvaged,
      Map<String, FileDiagnosis> diagnoses, List<Path> parts, Map<String, Long> invalidRows)
      throws SQLException, IOException {
    List<List<LogFile>> batches = plan(files);
    for (int b = 0; b < batches.size(); b++) {
      List<LogFile> batch = batches.get(b);
      batchLabel = "batch " + (b + 1) + "/" + batches.size();
      currentBatchBytes = batch.stream().mapToLong(RecordImporter::weight).sum();
      Path target = stagingDir.resolve(String.format(Locale.ROOT, "batch-%05d", b));
      long start = System.nanoTime();
      copyBatchSalvagingBroken(batch, b, salvaged, diagnoses, target);
      if (LOG.isDebugEnabled()) {
        double seconds = (System.nanoTime() - start) / 1e9;
        LOG.debug("{}: {} files, {} in {} s ({} MiB/s){}", batchLabel, batch.size(),
            bytes(currentBatchBytes), String.format(Locale.ROOT, "%.2f", seconds),
            String.format(Locale.ROOT, "%.0f", currentBatchBytes / (double) (1 << 20) / seconds),
            partitioned ? ", partitioned" : "");
      }
      parts.addAll(collectParts(target, b));
      invalidRows.putAll(countInvalid(target));
      deleteTree(target);
      bytesDone.addAndGet(currentBatchBytes);
      currentBatchBytes = 0;
    }
  }

  /**
   * Copies a batch; when that fails, salvages the batch's files the engine cannot read and copies
   * it again.
   *
   * @throws SQLException when the batch fails and none of its files is found unreadable
   */
  private void copyBatchSalvagingBroken(List<LogFile> batch, int b, Map<String, Path> salvaged,
      Map<String, FileDiagnosis> diagnoses, Path target) throws SQLException, IOException {
    try {
      copyBatchAdaptively(batch, salvaged, target);
    } catch (SQLException first) {
      deleteTree(target);
      /* A batch that read files typed is first tried again the checked way, as it was read before
       * the screen: a typed reading that fails where the checked one would not stops nothing. */
      if (batch.stream().anyMatch(f -> screened.containsKey(f.displayName()))) {
        LOG.debug("batch {} failed with files read typed; again, all checked", b, first);
        batch.forEach(f -> screened.remove(f.displayName()));
        try {
          copyBatchAdaptively(batch, salvaged, target);
          return;
        } catch (SQLException again) {
          deleteTree(target);
        }
      }
      LOG.debug("batch {} failed, probing its files", b, first);
      int broken = 0;
      for (LogFile f : batch) {
        if (!salvaged.containsKey(f.displayName()) && !readable(f)) {
          salvage(f, salvaged, diagnoses);
          broken++;
        }
      }
      if (broken == 0) {
        throw new SQLException("DuckDB could not import " + batchLabel + " ("
            + batch.size() + " files, first " + batch.get(0).displayName() + "): "
            + first.getMessage(), first);
      }
      copyBatchAdaptively(batch, salvaged, target);
    }
  }

  /**
   * Names the unusable lines: only files where the fast reader met some, and that have no
   * diagnosis yet, are read again.
   */
  private void locateUnusableLines(List<LogFile> files, Map<String, Long> invalidRows,
      Map<String, FileDiagnosis> diagnoses, List<String> notices) throws IOException {
    Map<String, LogFile> byName = files.stream()
        .collect(Collectors.toMap(LogFile::displayName, f -> f, (a, c) -> a, LinkedHashMap::new));
    List<String> toDiagnose = invalidRows.keySet().stream()
        .filter(n -> !diagnoses.containsKey(n)).sorted().toList();
    for (int i = 0; i < toDiagnose.size(); i++) {
      String name = toDiagnose.get(i);
      LogFile f = byName.get(name);
      if (f == null) {
        notices.add("the reader reported " + invalidRows.get(name) + " unusable rows for '"
            + name + "', which is not an input file");
        continue;
      }
      int n = i + 1;
      progress.stage("locating unusable lines", () -> "file " + n + "/" + toDiagnose.size());
      diagnoses.put(name, LogFileScanner.scan(f, options.maxListedPerFile(), null));
    }
  }

  /** The result: one {@link FileImport} per input, in the inputs' order, and the totals. */
  private ImportResult importResult(List<LogFile> inputs, ParquetInputs.Result fromParquet,
      Map<String, FileDiagnosis> diagnoses, Map<String, Path> salvaged,
      Map<String, Long> invalidRows, List<Path> parts, List<String> notices)
      throws SQLException {
    Map<String, Long> recordsPerFile = countRecords(parts);
    List<FileImport> imports = new ArrayList<>();
    List<RejectedLine> listed = new ArrayList<>();
    long totalRecords = 0;
    long totalRejected = 0;
    for (LogFile f : inputs) {
      String name = f.displayName();
      if (f.compression() == Compression.PARQUET) {
        FileImport read = fromParquet.imports().get(name);
        if (read != null) {
          imports.add(read);
          totalRecords += read.records();
        }
        continue;
      }
      FileDiagnosis d = diagnoses.get(name);
      boolean wasSalvaged = salvaged.containsKey(name);
      long sqlInvalid = invalidRows.getOrDefault(name, 0L);
      long rejected = wasSalvaged ? d.rejected() + sqlInvalid : sqlInvalid;
      if (d != null && !wasSalvaged && d.rejected() != sqlInvalid) {
        notices.add(String.format(Locale.ROOT, "%s: DuckDB's reader skipped %d rows, the line"
            + " check found %d unusable lines; the records imported are DuckDB's", name,
            sqlInvalid, d.rejected()));
      }
      long records = recordsPerFile.getOrDefault(name, 0L);
      totalRecords += records;
      totalRejected += rejected;
      if (d != null) {
        listed.addAll(d.listed());
      }
      imports.add(new FileImport(name, f.path().toString(), f.compression(), f.sizeBytes(),
          records, rejected, d == null ? 0 : d.listed().size(), d == null ? null : d.damage(),
          d != null && d.corrupt(), wasSalvaged));
    }
    listed.sort(Comparator.comparing(RejectedLine::file).thenComparingLong(RejectedLine::line));
    parts.addAll(fromParquet.parts());
    return new ImportResult(totalRecords, totalRejected, imports, listed, parts, notices,
        fromParquet.skipped());
  }

  private String status() {
    long total = Math.max(1, bytesTotal);
    double[] inBatch = {0};
    engine.pollProgress(p -> inBatch[0] = p);
    double done = bytesDone.get() + inBatch[0] * currentBatchBytes;
    return String.format(Locale.ROOT, "%s, %.0f%% of %s", batchLabel, 100.0 * done / total,
        bytes(bytesTotal));
  }

  static String bytes(long n) {
    if (n >= 1L << 30) {
      return String.format(Locale.ROOT, "%.1f GiB", n / (double) (1L << 30));
    }
    if (n >= 1L << 20) {
      return String.format(Locale.ROOT, "%.1f MiB", n / (double) (1L << 20));
    }
    return n + " bytes";
  }

  private static long weight(LogFile f) {
    return f.compression() == Compression.GZIP ? f.sizeBytes() * GZIP_WEIGHT : f.sizeBytes();
  }

  /** Consecutive files (name order) up to the batch's byte and file bounds. */
  private List<List<LogFile>> plan(List<LogFile> files) {
    List<List<LogFile>> batches = new ArrayList<>();
    List<LogFile> current = new ArrayList<>();
    long bytes = 0;
    for (LogFile f : files) {
      if (!current.isEmpty() && (bytes + weight(f) > options.batchBytes()
          || current.size() >= options.maxFilesPerBatch())) {
        batches.add(current);
        current = new ArrayList<>();
        bytes = 0;
      }
      current.add(f);
      bytes += weight(f);
    }
    if (!current.isEmpty()) {
      batches.add(current);
    }
    return batches;
  }

  /** Copies a batch; if it has unusable rows, again with the partitioned write, from now on. */
  private void copyBatchAdaptively(List<LogFile> batch, Map<String, Path> salvaged, Path target)
      throws SQLException {
    try {
      copyBatch(batch, salvaged, target);
    } catch (SQLException e) {
      if (enums && e.getMessage() != null && e.getMessage().contains("Conversion Error")) {
        // A value outside an ENUM's list (a file name DuckDB spelled otherwise): text columns.
        LOG.debug("{}: {}; text columns as text from now on", batchLabel, e.getMessage());
        enums = false;
        deleteTree(target);
        copyBatchAdaptively(batch, salvaged, target);
        return;
      }
      if (partitioned || e.getMessage() == null || !e.getMessage().contains(UNUSABLE_ROW)) {
        throw e;
      }
      LOG.debug("{} has unusable rows; partitioned writes from now on", batchLabel);
      partitioned = true;
      deleteTree(target);
      copyBatch(batch, salvaged, target);
    }
  }

  private void copyBatch(List<LogFile> batch, Map<String, Path> salvaged, Path target)
      throws SQLException {
    /* One reader per compression and reading: the screened files typed, the others checked. */
    record Group(Compression compression, JsonLayout.Reading reading) {}
    Map<Group, List<String>> paths = new LinkedHashMap<>();
    Map<String, String> displayByPath = new LinkedHashMap<>();
    Map<Group, Set<String>> held = new HashMap<>(); // the typed groups' fields, as screened
    for (LogFile f : batch) {
      Path clean = salvaged.get(f.displayName());
      String path = clean != null ? clean.toString() : f.path().toString();
      Compression c = clean != null ? Compression.NONE : f.compression();
      JsonLayout.Reading reading = clean == null && screened.containsKey(f.displayName())
          && unchanged(f) ? JsonLayout.Reading.TYPED : JsonLayout.Reading.JSON_TEXT;
      Group g = new Group(c, reading);
      paths.computeIfAbsent(g, k -> new ArrayList<>()).add(path);
      if (reading == JsonLayout.Reading.TYPED) {
        held.computeIfAbsent(g, k -> new HashSet<>()).addAll(screened.get(f.displayName()));
      }
      displayByPath.put(path, f.displayName());
    }
    /* The typed reader is given only the fields the export's columns read (all: every field)
     * that the group's lines hold: a field left out costs it nothing, and one that no line holds
     * is null all the same. */
    Set<RecordField> read = RecordSchema.typedFields(columns);
    String source = paths.entrySet().stream()
        .map(e -> RecordSchema.raw("filename", e.getKey().reading(), "SELECT * FROM "
            + readJson(e.getValue(), e.getKey().compression(), e.getKey().reading(), read,
                held.get(e.getKey())), columns, held.get(e.getKey())))
        .collect(Collectors.joining("\nUNION ALL\n"));
    DisplayNames names = DisplayNames.of(displayByPath);
    String rows = "SELECT " + RecordSchema.finalColumns(names.sql("r_file"), columns) + ",\n  "
        + RecordSchema.VALIDITY + " AS valid\nFROM (" + source + ") r";
    Set<String> fileNames = new LinkedHashSet<>();
    displayByPath.keySet().forEach(p -> fileNames.add(names.apply(p)));
    String casts = enumCasts(fileNames);
    if (partitioned) {
      engine.update("COPY (SELECT *" + casts + " FROM (\n" + rows + "\n)) TO "
          + DuckDbEngine.literal(target.toString())
          + " (" + DuckDbEngine.PARQUET_OPTIONS + ", PARTITION_BY (valid),"
          + " FILENAME_PATTERN 'part-{i}', OVERWRITE_OR_IGNORE true)");
      return;
    }
    // The layout the partitioned write leaves, so that the rest of the import is the same.
    Path valid = target.resolve("valid=true");
    try {
      Files.createDirectories(valid);
    } catch (IOException e) {
      throw new SQLException("cannot create " + valid + ": " + e, e);
    }
    engine.update("COPY (SELECT * EXCLUDE (valid)" + casts + " FROM (\n" + rows
        + "\n) WHERE CASE WHEN valid"
        + " THEN true ELSE error(" + DuckDbEngine.literal(UNUSABLE_ROW) + ") END) TO "
        + DuckDbEngine.literal(valid.resolve("part-0.parquet").toString())
        + " (" + DuckDbEngine.PARQUET_OPTIONS + ")");
  }

  /**
   * The casts, as a {@code REPLACE} clause, of the text columns whose every value is known before
   * the copy to ENUMs of those values: the ones the import's SQL spells out ({@link
   * RecordSchema#CLOSED_TEXT}) and the file names of the batch. DuckDB writes an ENUM into
   * Parquet from its own list instead of hashing every value into the column's dictionary, a
   * few per cent of a batch's copy (10 M records: 0.3 s); the file's column is the same text
   * (the same Parquet type, the same values). A value outside a list fails the copy, which
   * {@link #copyBatchAdaptively} then makes again without the casts.
   */
  private String enumCasts(Set<String> fileNames) {
    if (!enums) {
      return "";
    }
    StringJoiner casts = new StringJoiner(", ", " REPLACE (", ")").setEmptyValue("");
    for (RecordSchema.Column c : columns.columns()) {
      Collection<String> values = c.name().equals("source_file") ? fileNames
          : closedText.get(c.name());
      if (values != null && !values.isEmpty()) {
        casts.add("CAST(" + c.name() + " AS ENUM(" + values.stream().map(DuckDbEngine::literal)
            .collect(Collectors.joining(", ")) + ")) AS " + c.name());
      }
    }
    return casts.toString();
  }

  /**
   * Whether a file still has the size it had when it was found: a log still being written may
   * have lines the screen did not see, and is read the checked way.
   */
  private static boolean unchanged(LogFile f) {
    try {
      return Files.size(f.path()) == f.sizeBytes();
    } catch (IOException e) {
      return false;
    }
  }

  static String readJson(List<String> paths, Compression compression) {
    return readJson(paths, compression, JsonLayout.Reading.JSON_TEXT);
  }

  static String readJson(List<String> paths, Compression compression, JsonLayout.Reading reading) {
    return readJson(paths, compression, reading, null);
  }

  /** The reader; with {@link JsonLayout.Reading#TYPED}, of the fields in {@code read} (null: all). */
  static String readJson(List<String> paths, Compression compression, JsonLayout.Reading reading,
      Set<RecordField> read) {
    return readJson(paths, compression, reading, read, null);
  }

  /**
   * The reader; with {@link JsonLayout.Reading#TYPED}, of the fields in {@code read} (null: all)
   * that are in {@code present} (null: all), which must hold every field of the files' lines.
   */
  static String readJson(List<String> paths, Compression compression, JsonLayout.Reading reading,
      Set<RecordField> read, Set<String> present) {
    return "read_json(" + DuckDbEngine.literalList(paths)
        + ", format = 'newline_delimited', compression = '" + compression.duckDbName() + "'"
        + ", columns = " + JsonLayout.duckDbColumns(reading, read, present)
        + ", ignore_errors = true, filename = true"
        + ", maximum_object_size = " + LineReader.MAX_LINE_BYTES + ")";
  }

  /** Whether DuckDB reads the file on its own without a hard error. */
  private boolean readable(LogFile f) {
    try {
      engine.query("SELECT count(*) FROM "
          + readJson(List.of(f.path().toString()), f.compression()), r -> r.getLong(1));
      return true;
    } catch (SQLException e) {
      LOG.debug("{} cannot be read by DuckDB: {}", f.displayName(), e.getMessage());
      return false;
    }
  }

  private void salvage(LogFile f, Map<String, Path> salvaged, Map<String, FileDiagnosis> diagnoses)
      throws IOException {
    Path copy = stagingDir.resolve(String.format(Locale.ROOT, "salvaged-%05d.jsonl",
        salvageCounter++));
    progress.stage("reading " + f.displayName() + " line by line");
    diagnoses.put(f.displayName(), LogFileScanner.scan(f, options.maxListedPerFile(), copy));
    salvaged.put(f.displayName(), copy);
  }

  private List<Path> collectParts(Path target, int batch) throws IOException {
    Path valid = target.resolve("valid=true");
    List<Path> moved = new ArrayList<>();
    if (!Files.isDirectory(valid)) {
      return moved;
    }
    List<Path> produced;
    try (Stream<Path> s = Files.list(valid)) {
      produced = s.filter(p -> p.toString().endsWith(".parquet")).sorted().toList();
    }
    for (int i = 0; i < produced.size(); i++) {
      Path to = recordsDir.resolve(String.format(Locale.ROOT, "part-%05d-%03d.parquet", batch, i));
      Files.move(produced.get(i), to);
      moved.add(to);
    }
    return moved;
  }

  private Map<String, Long> countInvalid(Path target) throws SQLException, IOException {
    Path invalid = target.resolve("valid=false");
    Map<String, Long> counts = new HashMap<>();
    if (!Files.isDirectory(invalid)) {
      return counts;
    }
    engine.query("SELECT source_file, count(*) FROM read_parquet("
        + DuckDbEngine.literal(invalid.resolve("*.parquet").toString()) + ") GROUP BY 1",
        r -> counts.put(r.getString(1), r.getLong(2)));
    return counts;
  }

  private Map<String, Long> countRecords(List<Path> parts) throws SQLException {
    Map<String, Long> counts = new HashMap<>();
    if (parts.isEmpty()) {
      return counts;
    }
    progress.stage("counting records per file");
    engine.query("SELECT source_file, count(*) FROM read_parquet("
        + DuckDbEngine.literalList(parts.stream().map(Path::toString).toList()) + ") GROUP BY 1",
        r -> counts.put(r.getString(1), r.getLong(2)));
    return counts;
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }
}
