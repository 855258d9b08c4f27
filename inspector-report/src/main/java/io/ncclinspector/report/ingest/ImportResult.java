package io.ncclinspector.report.ingest;

import io.ncclinspector.report.input.RejectedLine;
import io.ncclinspector.report.input.SkippedInput;
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
 * @param skipped files the reader found not to be logs (an engine that looks at the content
 *     only while importing, such as Spark's, reports them here rather than at discovery)
 */
public record ImportResult(long records, long rejected, List<FileImport> files,
    List<RejectedLine> rejectedLines, List<Path> parts, List<String> notices,
    List<SkippedInput> skipped) {
  public ImportResult {
    skipped = List.copyOf(skipped);
    files = List.copyOf(files);
    rejectedLines = List.copyOf(rejectedLines);
    parts = List.copyOf(parts);
    notices = List.copyOf(notices);
  }
}
