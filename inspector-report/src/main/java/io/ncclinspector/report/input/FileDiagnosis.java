package io.ncclinspector.report.input;

import java.util.List;

/**
 * What a line-by-line scan of one file found.
 *
 * @param file the file's display name
 * @param records lines that are usable records
 * @param rejected lines that are not (blank lines are neither)
 * @param listed the first of the rejected lines, with numbers and reasons
 * @param damage a problem of the file as a whole (a truncated or corrupt gzip stream, a read
 *     error) after which nothing more could be read; null if none
 * @param corrupt whether that damage hides data the file holds (corrupt gzip data, a read
 *     error), rather than the file merely ending early as a killed writer's file does
 */
public record FileDiagnosis(String file, long records, long rejected, List<RejectedLine> listed,
    String damage, boolean corrupt) implements java.io.Serializable {
  public FileDiagnosis {
    listed = List.copyOf(listed);
  }

  /** A file that could not be read at all. */
  public static FileDiagnosis readFailed(String file, String why) {
    return new FileDiagnosis(file, 0, 0, List.of(), "read failed: " + why, true);
  }
}
