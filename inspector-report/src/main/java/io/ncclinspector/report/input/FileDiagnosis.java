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
 */
public record FileDiagnosis(String file, long records, long rejected, List<RejectedLine> listed,
    String damage) implements java.io.Serializable {
  public FileDiagnosis {
    listed = List.copyOf(listed);
  }
}
