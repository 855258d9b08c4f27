package io.ncclinspector.report;

import io.ncclinspector.report.output.ReportData;
import java.nio.file.Path;

/**
 * A finished report.
 *
 * @param data everything it presents
 * @param outputDirectory where its files are
 * @param seconds wall time of the run
 */
public record ReportResult(ReportData data, Path outputDirectory, double seconds) {

  public Path html() {
    return outputDirectory.resolve(io.ncclinspector.report.output.OutputFiles.HTML);
  }

  public Path recordsDirectory() {
    return outputDirectory.resolve(io.ncclinspector.report.output.OutputFiles.RECORDS_DIR);
  }
}
