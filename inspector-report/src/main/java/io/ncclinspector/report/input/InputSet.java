package io.ncclinspector.report.input;

import java.util.List;

/** The result of discovery: files to import, in name order, and files passed over. */
public record InputSet(List<LogFile> logs, List<SkippedInput> skipped) {
  public InputSet {
    logs = List.copyOf(logs);
    skipped = List.copyOf(skipped);
  }

  public long totalBytes() {
    return logs.stream().mapToLong(LogFile::sizeBytes).sum();
  }
}
