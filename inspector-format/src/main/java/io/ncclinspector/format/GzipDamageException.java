package io.ncclinspector.format;

import java.util.zip.ZipException;

/**
 * A gzip file that cannot be read to its end ({@link CheckedGzipInputStream}): the message says
 * where and why reading stopped, and for a corrupt file how many compressed bytes were not read.
 */
public final class GzipDamageException extends ZipException {
  private static final long serialVersionUID = 1L;

  private final boolean truncated;
  private final int member;
  private final long offset;

  GzipDamageException(boolean truncated, int member, long offset, String message) {
    super(message);
    this.truncated = truncated;
    this.member = member;
    this.offset = offset;
  }

  /**
   * Whether the file only ends early (inside a member, or in zero bytes that were never
   * written), as a killed process's file does; otherwise it is corrupt, and data that it holds
   * could not be read.
   */
  public boolean truncated() {
    return truncated;
  }

  /** The number of the member where reading stopped (1 is the first; 0 before any). */
  public int member() {
    return member;
  }

  /** The compressed byte offset where reading stopped. */
  public long offset() {
    return offset;
  }
}
