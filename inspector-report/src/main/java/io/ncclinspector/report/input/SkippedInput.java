package io.ncclinspector.report.input;

/**
 * A file that was found but not imported, and why.
 *
 * @param displayName the file as the report names it
 * @param reason why it was not imported
 * @param unreadable whether it is a file that could not be read (permission denied, a link to a
 *     missing file, an I/O error), as opposed to one that is not a log (empty, a trace, a copy of
 *     another input, a FIFO): the report then exits with status 1, as data may be missing
 */
public record SkippedInput(String displayName, String reason, boolean unreadable)
    implements java.io.Serializable {
  /** A file that is not a log, passed over. */
  public SkippedInput(String displayName, String reason) {
    this(displayName, reason, false);
  }

  /** A file that could not be read. */
  public static SkippedInput unreadable(String displayName, String reason) {
    return new SkippedInput(displayName, reason, true);
  }
}
