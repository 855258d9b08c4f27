package io.ncclinspector.report.ingest;

import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.input.Compression;
import io.ncclinspector.report.input.LogFile;
import io.ncclinspector.report.input.SkippedInput;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reads the report's own Parquet export back as input (an earlier report's {@code records}
 * directory, say, together with new logs): files with every column of {@link
 * RecordSchema.ColumnSet#CORE} (either set's export) are copied into this report's export (their
 * {@code source_file} still names the log each record came from), a column of this export that
 * none of them has as null; other Parquet files are passed over with the reason.
 */
public final class ParquetInputs {
  /** What was read: per file, and the parts written. */
  record Result(Map<String, FileImport> imports, List<SkippedInput> skipped, List<Path> parts) {}

  private ParquetInputs() {}

  static Result copy(DuckDbEngine engine, List<LogFile> files, Path recordsDir,
      RecordSchema.ColumnSet set) throws SQLException {
    Map<String, FileImport> imports = new HashMap<>();
    List<SkippedInput> skipped = new ArrayList<>();
    List<LogFile> usable = new ArrayList<>();
    Set<String> present = new HashSet<>();
    for (LogFile f : files) {
      Set<String> names = new HashSet<>();
      String problem = problem(engine, f, names);
      if (problem == null) {
        usable.add(f);
        present.addAll(names);
      } else {
        skipped.add(new SkippedInput(f.displayName(), problem));
      }
    }
    if (usable.isEmpty()) {
      return new Result(imports, skipped, List.of());
    }
    List<String> paths = usable.stream().map(LogFile::location).toList();
    String columns = set.columns().stream()
        .map(c -> "CAST(" + (present.contains(c.name()) ? DuckDbEngine.identifier(c.name())
            : "NULL") + " AS " + c.type() + ") AS " + DuckDbEngine.identifier(c.name()))
        .collect(Collectors.joining(", "));
    Path part = recordsDir.resolve("part-parquet-inputs.parquet");
    engine.update("COPY (SELECT " + columns + " FROM read_parquet("
        + DuckDbEngine.literalList(paths) + ", union_by_name = true)) TO "
        + DuckDbEngine.literal(part.toString()) + " (" + DuckDbEngine.PARQUET_OPTIONS + ")");
    Map<String, Long> counts = new HashMap<>();
    engine.query("SELECT filename, count(*) FROM read_parquet(" + DuckDbEngine.literalList(paths)
        + ", filename = true) GROUP BY 1", r -> counts.put(r.getString(1), r.getLong(2)));
    for (LogFile f : usable) {
      imports.put(f.displayName(), new FileImport(f.displayName(), f.location(),
          Compression.PARQUET, f.sizeBytes(), counts.getOrDefault(f.location(), 0L), 0, 0, null,
          false, false));
    }
    return new Result(imports, skipped, List.of(part));
  }

  /** Why a Parquet file cannot be read as records, or null; adds its column names to {@code names}. */
  private static String problem(DuckDbEngine engine, LogFile f, Set<String> names) {
    if (!f.engineSafePath()) {
      return "a Parquet file whose name has glob characters (* ? [ ] { }): rename it to read it";
    }
    try {
      engine.query("SELECT name FROM parquet_schema(" + DuckDbEngine.literal(f.location()) + ")",
          r -> names.add(r.getString(1)));
    } catch (SQLException e) {
      return "cannot be read as Parquet: " + e.getMessage();
    }
    List<String> missing = missingColumns(names);
    return missing.isEmpty() ? null : notAnExport(missing);
  }

  /** The core columns (which every export has) a file lacks. */
  public static List<String> missingColumns(Set<String> present) {
    return RecordSchema.ColumnSet.CORE.columns().stream().map(RecordSchema.Column::name)
        .filter(n -> !present.contains(n)).toList();
  }

  /** The reason given for a Parquet file that is not the export. */
  public static String notAnExport(List<String> missing) {
    return "Parquet without the report's record columns (missing " + missing.size() + ": "
        + String.join(", ", missing.subList(0, Math.min(5, missing.size())))
        + (missing.size() > 5 ? ", ..." : "") + ")";
  }
}
