package io.ncclinspector.report.input;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Scans a local log file with exact line numbers ({@link LineScan}) and optionally copies the
 * usable lines to a clean file. DuckDB's import runs it only on files where its fast reader met
 * lines it could not use (to name them), or could not read the file at all (to salvage what can
 * be read).
 */
public final class LogFileScanner {
  private LogFileScanner() {}

  /**
   * Scans a file.
   *
   * @param file the file
   * @param maxListed how many rejected lines to keep with their details
   * @param salvageTo if not null, the usable lines are written there, one per line
   */
  public static FileDiagnosis scan(LogFile file, int maxListed, Path salvageTo)
      throws IOException {
    OutputStream copy = salvageTo == null ? null
        : new BufferedOutputStream(Files.newOutputStream(salvageTo), 1 << 16);
    try (copy) {
      LineReader reader;
      try {
        reader = LineReader.open(file.path(), file.compression());
      } catch (IOException e) {
        return FileDiagnosis.readFailed(file.displayName(), LogDiscovery.describe(e));
      }
      try (LineScan scan = new LineScan(reader, file.displayName(), maxListed)) {
        LineReader.Line line;
        while ((line = scan.next()) != null) {
          if (copy != null) {
            copy.write(line.bytes(), line.offset(), line.length());
            copy.write('\n');
          }
        }
        return scan.diagnosis();
      }
    }
  }
}
