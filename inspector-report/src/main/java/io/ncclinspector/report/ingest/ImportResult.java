package io.ncclinspector.report.ingest;

import io.ncclinspector.report.input.RejectedLine;
import java.nio.file.Path;
import java.util.List;

/**
 * The outcome of the import.
 *
 * @param records records written to the Parquet export
 * @param rejected lines skipped in all files
 * @param files per input file
 * @param rejectedLines the listed rejected lines, by file and line
 * @param parts the Parquet files of the export
 * @param notices things the user should know (salvaged files, disagreements between the fast
 *     reader and the line check)
 */
public record ImportResult(long records, long rejected, List<FileImport> files,
    List<RejectedLine> rejectedLines, List<Path> parts, List<String> notices) {
  public ImportResult {
    files = List.copyOf(files);
    rejectedLines = List.copyOf(rejectedLines);
    parts = List.copyOf(parts);
    notices = List.copyOf(notices);
  }
}
