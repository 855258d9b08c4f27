package io.ncclinspector.report.synthetic;

import java.nio.file.Path;
import java.util.List;

/**
 * What the generator wrote.
 *
 * @param files one log file per rank, in rank order
 * @param records records in all files
 * @param bytes bytes on disk in all files
 * @param iterations iterations simulated
 */
public record SyntheticResult(List<Path> files, long records, long bytes, long iterations) {
  public SyntheticResult {
    files = List.copyOf(files);
  }
}
