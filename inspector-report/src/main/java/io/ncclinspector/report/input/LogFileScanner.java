package io.ncclinspector.report.input;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a log file line by line with exact line numbers, checks each line with
 * {@link LineCheck}, and optionally copies the usable lines to a clean file. The import runs it
 * only on files where DuckDB's fast reader met lines it could not use (to name them), or could not
 * read the file at all (to salvage what can be read).
 */
public final class LogFileScanner {
  private static final int EXCERPT_CHARS = 120;

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
    long records = 0;
    long rejected = 0;
    List<RejectedLine> listed = new ArrayList<>();
    String damage = null;
    OutputStream copy = salvageTo == null ? null
        : new BufferedOutputStream(Files.newOutputStream(salvageTo), 1 << 16);
    try (copy) {
      try (LineReader reader = LineReader.open(file.path(), file.compression())) {
        LineReader.Line line;
        while ((line = reader.next()) != null) {
          if (line.blank()) {
            continue;
          }
          String reason = LineCheck.check(line);
          if (reason == null) {
            records++;
            if (copy != null) {
              copy.write(line.bytes(), line.offset(), line.length());
              copy.write('\n');
            }
          } else {
            rejected++;
            if (listed.size() < maxListed) {
              listed.add(new RejectedLine(file.displayName(), line.number(), reason,
                  excerpt(line)));
            }
          }
        }
      } catch (LineReader.DamagedInputException e) {
        damage = e.getMessage();
      } catch (IOException e) {
        damage = "read failed: " + LogDiscovery.describe(e);
      }
    }
    return new FileDiagnosis(file.displayName(), records, rejected, listed, damage);
  }

  static String excerpt(LineReader.Line line) {
    int n = Math.min(line.length(), EXCERPT_CHARS * 4);
    String text = new String(line.bytes(), line.offset(), n, StandardCharsets.UTF_8);
    StringBuilder b = new StringBuilder(Math.min(text.length(), EXCERPT_CHARS + 1));
    for (int i = 0; i < text.length() && b.length() < EXCERPT_CHARS; i++) {
      char c = text.charAt(i);
      b.append(c < 0x20 || c == 0x7f ? '?' : c);
    }
    if (line.tooLong() || text.length() > EXCERPT_CHARS) {
      b.append('…');
    }
    return b.toString();
  }
}
