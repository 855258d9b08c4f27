package io.ncclinspector.report.input;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads one log file's usable record lines, one at a time, and keeps account of the rest: blank
 * lines are passed over, every other line is checked by {@link LineCheck}; an unusable one is
 * counted and, up to a limit, listed with its number, reason and beginning. A damaged stream ends
 * the scan and is noted, never thrown: the lines before the damage count.
 *
 * <p>Both engines use it: DuckDB's import to name the unusable lines of the files its own
 * reader had trouble with (and to salvage unreadable files), Spark's import to read every file
 * on its executors.
 */
public final class LineScan implements AutoCloseable {
  private static final int EXCERPT_CHARS = 120;
  /** Lines up to this long go through the screen first; longer ones straight to the check. */
  private static final int SCREENED_LINE_BYTES = 64 << 10;

  private final LineReader reader;
  private final String displayName;
  private final int maxListed;
  private final List<RejectedLine> listed = new ArrayList<>();
  private final LineScreen screen = new LineScreen(SCREENED_LINE_BYTES);
  private long records;
  private long rejected;
  private String damage;
  private boolean corrupt;
  private boolean done;

  /**
   * @param reader the file's lines (closed with the scan)
   * @param displayName how reports name the file
   * @param maxListed how many rejected lines to keep with their details
   */
  public LineScan(LineReader reader, String displayName, int maxListed) {
    this.reader = reader;
    this.displayName = displayName;
    this.maxListed = maxListed;
  }

  /** The next usable record line (valid until the next call), or null at the end. */
  public LineReader.Line next() {
    while (!done) {
      LineReader.Line line;
      try {
        line = reader.next();
      } catch (LineReader.DamagedInputException e) {
        damage = e.getMessage();
        corrupt = !e.truncated();
        line = null;
      } catch (IOException e) {
        damage = "read failed: " + LogDiscovery.describe(e);
        corrupt = true;
        line = null;
      }
      if (line == null) {
        done = true;
        break;
      }
      if (line.blank()) {
        continue;
      }
      // The screen passes only lines the check accepts, at a fraction of its cost.
      String reason = !line.tooLong() && screen.passesLine(line.bytes(), line.offset(),
          line.length()) ? null : LineCheck.check(line);
      if (reason == null) {
        records++;
        return line;
      }
      rejected++;
      if (listed.size() < maxListed) {
        listed.add(new RejectedLine(displayName, line.number(), reason, excerpt(line)));
      }
    }
    return null;
  }

  /** What the scan found so far (all of it once {@link #next} has returned null). */
  public FileDiagnosis diagnosis() {
    return new FileDiagnosis(displayName, records, rejected, listed, damage, corrupt);
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }

  static String excerpt(LineReader.Line line) {
    int n = Math.min(line.length(), EXCERPT_CHARS * 4);
    String text = new String(line.bytes(), line.offset(), n,
        java.nio.charset.StandardCharsets.UTF_8);
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
