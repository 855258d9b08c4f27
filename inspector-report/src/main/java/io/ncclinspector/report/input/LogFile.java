package io.ncclinspector.report.input;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One input file to import.
 *
 * @param location where it is: its absolute path, or the URI of a file outside the local file
 *     system (HDFS, S3, ... read through Hadoop by the Spark engine)
 * @param path absolute, normalised path; null for a file outside the local file system
 * @param displayName how reports name it: the input argument as given, joined with the path
 *     below it
 * @param sizeBytes size on disk
 * @param compression from the file's magic bytes
 */
public record LogFile(String location, Path path, String displayName, long sizeBytes,
    Compression compression) {
  public LogFile {
    Objects.requireNonNull(location, "location");
    Objects.requireNonNull(displayName, "displayName");
    Objects.requireNonNull(compression, "compression");
  }

  /** A file of the local file system. */
  public LogFile(Path path, String displayName, long sizeBytes, Compression compression) {
    this(path.toString(), path, displayName, sizeBytes, compression);
  }

  /** A file outside the local file system, read through Hadoop. */
  public static LogFile remote(String uri, String displayName, long sizeBytes,
      Compression compression) {
    return new LogFile(uri, null, displayName, sizeBytes, compression);
  }

  /**
   * Whether DuckDB may be handed this path as is. Its file readers expand glob patterns, so a
   * name containing glob characters could match other files or none; such files are copied to a
   * safe name first.
   */
  public boolean engineSafePath() {
    String s = location;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '{' || c == '}' || c < 0x20) {
        return false;
      }
    }
    return true;
  }
}
