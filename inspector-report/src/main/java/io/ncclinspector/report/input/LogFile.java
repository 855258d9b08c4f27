package io.ncclinspector.report.input;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One input file to import.
 *
 * @param path absolute, normalised path
 * @param displayName how reports name it: the input argument as given, joined with the path
 *     below it
 * @param sizeBytes size on disk
 * @param compression from the file's magic bytes
 */
public record LogFile(Path path, String displayName, long sizeBytes, Compression compression) {
  public LogFile {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(displayName, "displayName");
    Objects.requireNonNull(compression, "compression");
  }

  /**
   * Whether DuckDB may be handed this path as is. Its file readers expand glob patterns, so a
   * name containing glob characters could match other files or none; such files are copied to a
   * safe name first.
   */
  public boolean engineSafePath() {
    String s = path.toString();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '{' || c == '}' || c < 0x20) {
        return false;
      }
    }
    return true;
  }
}
