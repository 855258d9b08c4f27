package io.ncclinspector.report;

/** A report cannot be made; the message says why in the user's terms. */
public final class ReportException extends Exception {
  public ReportException(String message) {
    super(message);
  }

  public ReportException(String message, Throwable cause) {
    super(message, cause);
  }
}
