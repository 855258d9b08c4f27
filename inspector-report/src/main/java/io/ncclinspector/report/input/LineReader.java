package io.ncclinspector.report.input;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import io.ncclinspector.format.CheckedGzipInputStream;
import io.ncclinspector.format.GzipDamageException;

/**
 * Reads a file line by line as bytes (no charset decoding), counting lines from 1. A line longer
 * than the limit is returned truncated and marked, and the reader resynchronises at the next
 * newline: one runaway line cannot exhaust memory. Gzip is read with the project's checked reader
 * ({@link CheckedGzipInputStream}: every member, CRC and length): a stream that ends early or is
 * corrupt surfaces as a {@link DamagedInputException} from {@link #next()}, after every complete
 * line before it, saying where and why reading stopped.
 */
public final class LineReader implements AutoCloseable {
  /** The longest line kept whole; DuckDB's reader is configured with the same bound. */
  public static final int MAX_LINE_BYTES = 16 * 1024 * 1024;

  private final InputStream in;
  private final int maxLine;
  private byte[] buffer = new byte[1 << 16];
  private int start;
  private int end;
  private boolean eof;
  private long lineNumber;
  /** A damaged stream's error, raised once the bytes read before it have been returned. */
  private IOException damage;

  /** One line: a view into the reader's buffer, valid until the next call to {@link #next()}. */
  public record Line(long number, byte[] bytes, int offset, int length, boolean tooLong,
      boolean lastWithoutNewline) {
    /** Whether the line holds only whitespace. */
    public boolean blank() {
      for (int i = offset; i < offset + length; i++) {
        byte b = bytes[i];
        if (b != ' ' && b != '\t' && b != '\r') {
          return false;
        }
      }
      return true;
    }
  }

  private LineReader(InputStream in, int maxLine) {
    this.in = in;
    this.maxLine = maxLine;
  }

  public static LineReader open(Path file, Compression compression) throws IOException {
    return open(file, compression, MAX_LINE_BYTES);
  }

  static LineReader open(Path file, Compression compression, int maxLine) throws IOException {
    return open(Files.newInputStream(file), Files.size(file), compression, maxLine);
  }

  /**
   * Reads a stream (of any file system), which the reader closes.
   *
   * @param size the file's size in bytes (what a damage message says was not read), -1 if not
   *     known
   * @param maxLine the longest line kept whole
   */
  public static LineReader open(InputStream raw, long size, Compression compression, int maxLine) {
    InputStream in = compression == Compression.GZIP
        ? new CheckedGzipInputStream(raw, size) : new BufferedInputStream(raw, 1 << 16);
    return new LineReader(in, maxLine);
  }

  /** Lines returned so far. */
  public long lineNumber() {
    return lineNumber;
  }

  /** The next line, or null at the end of the file. */
  public Line next() throws IOException {
    int scanFrom = start;
    while (true) {
      for (int i = scanFrom; i < end; i++) {
        if (buffer[i] == '\n') {
          Line line = i - start > maxLine ? cut(start) : new Line(++lineNumber, buffer, start,
              i - start, false, false);
          start = i + 1;
          return line;
        }
      }
      if (end - start >= maxLine) {
        return skipRestOfLongLine();
      }
      if (eof) {
        if (start == end) {
          if (damage != null) {
            IOException e = damage;
            damage = null;
            throw e;
          }
          return null;
        }
        Line line = end - start > maxLine ? cut(start) : new Line(++lineNumber, buffer, start,
            end - start, false, true);
        start = end;
        return line;
      }
      int scanned = end - start;
      fill();
      scanFrom = start + scanned;
    }
  }

  /** An over-long line: its beginning (for the excerpt), marked. */
  private Line cut(int from) {
    byte[] head = new byte[Math.min(maxLine, 256)];
    System.arraycopy(buffer, from, head, 0, head.length);
    return new Line(++lineNumber, head, 0, head.length, true, false);
  }

  /** Returns the beginning of an over-long line and discards the rest of it. */
  private Line skipRestOfLongLine() throws IOException {
    Line line = cut(start);
    start = end;
    while (true) {
      if (start == end) {
        if (eof) {
          break;
        }
        fill();
        continue;
      }
      int i = start;
      while (i < end && buffer[i] != '\n') {
        i++;
      }
      if (i < end) {
        start = i + 1;
        break;
      }
      start = end;
    }
    return line;
  }

  private void fill() throws IOException {
    if (start > 0) {
      System.arraycopy(buffer, start, buffer, 0, end - start);
      end -= start;
      start = 0;
    }
    if (end == buffer.length) {
      byte[] bigger = new byte[Math.min(buffer.length * 2, maxLine + (1 << 16))];
      System.arraycopy(buffer, 0, bigger, 0, end);
      buffer = bigger;
    }
    int n;
    try {
      n = in.read(buffer, end, buffer.length - end);
    } catch (GzipDamageException e) {
      n = -1;
      long line = lineNumber + countNewlines();
      String why = e.getMessage().substring(e.getMessage().indexOf(": ") + 2);
      damage = e.truncated()
          ? new DamagedInputException(true, "gzip stream ends early (file truncated) after line "
              + line + ": " + why, e)
          : new DamagedInputException(false, "gzip data corrupt after line " + line + ": " + why,
              e);
    }
    if (n < 0) {
      eof = true;
    } else {
      end += n;
    }
  }

  /** Complete lines still in the buffer, for the line number of a damage message. */
  private long countNewlines() {
    long n = 0;
    for (int i = start; i < end; i++) {
      if (buffer[i] == '\n') {
        n++;
      }
    }
    return n;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }

  /** The compressed stream ended before its end marker or cannot be decompressed further. */
  public static final class DamagedInputException extends IOException {
    private final boolean truncated;

    DamagedInputException(boolean truncated, String message, Throwable cause) {
      super(message, cause);
      this.truncated = truncated;
    }

    /**
     * Whether the file only ends early (a killed writer's file); otherwise it is corrupt and holds
     * data that could not be read.
     */
    public boolean truncated() {
      return truncated;
    }
  }
}
