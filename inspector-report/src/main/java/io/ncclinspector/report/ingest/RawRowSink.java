package io.ncclinspector.report.ingest;

import io.ncclinspector.report.ingest.parquet.ColumnBuffer;
import io.ncclinspector.report.ingest.parquet.ParquetFileWriter;
import io.ncclinspector.report.input.LineScreen;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Turns the values {@link LineScreen} checks into raw rows ({@link RawLayout}) in a Parquet file,
 * converting each as DuckDB's typed reader does: strings unescaped to UTF-8, integers exact,
 * numbers to the nearest double (an integer written {@code -0} is 0, as DuckDB reads it), lists
 * and objects as their JSON text. A line's values are kept as positions until the line has
 * passed, then written column by column; nothing is allocated per line.
 */
final class RawRowSink implements LineScreen.FieldSink {
  private static final double[] POW10 = new double[23];
  /** Mantissas below this take another digit without overflow. */
  private static final long DIGIT_LIMIT = 100_000_000_000_000_000L;

  static {
    POW10[0] = 1;
    for (int i = 1; i < POW10.length; i++) {
      POW10[i] = POW10[i - 1] * 10; // exact up to 10^22
    }
  }

  private final RawLayout layout;
  private final ParquetFileWriter out;
  private final int columns;
  private final int collBit;
  private final int p2pBit;
  private final int[] from;
  private final int[] to;
  private final int[] stamp;
  private final ColumnBuffer[] cols;
  /** Per column: the ordinal of its {@link JsonLayout.Type}. */
  private final byte[] types;
  private int line = 1;
  private byte[] bytes;

  RawRowSink(RawLayout layout, ParquetFileWriter out) {
    this.layout = layout;
    this.out = out;
    this.columns = out.columnCount();
    this.from = new int[columns];
    this.to = new int[columns];
    this.stamp = new int[columns];
    this.collBit = 1 << layout.collPart();
    this.p2pBit = 1 << layout.p2pPart();
    this.cols = new ColumnBuffer[columns];
    this.types = new byte[columns];
    for (int c = 0; c < columns; c++) {
      cols[c] = out.column(c);
      types[c] = (byte) (c < RawLayout.FIRST_FIELD ? -1 : layout.type(c).ordinal());
    }
  }

  private static final int TEXT = JsonLayout.Type.TEXT.ordinal();
  private static final int INT = JsonLayout.Type.INT.ordinal();
  private static final int BIGINT = JsonLayout.Type.BIGINT.ordinal();
  private static final int HUGE = JsonLayout.Type.HUGE.ordinal();
  private static final int DOUBLE = JsonLayout.Type.DOUBLE.ordinal();
  private static final int BOOLEAN = JsonLayout.Type.BOOLEAN.ordinal();

  @Override
  public void beginLine() {
    line++;
  }

  @Override
  public void value(int part, int field, byte[] b, int start, int end) {
    int c = layout.target(part, field);
    if (c >= 0) {
      bytes = b;
      from[c] = start;
      to[c] = end;
      stamp[c] = line;
    }
  }

  @Override
  public void endLine(int parts) {
    ColumnBuffer[] cols = this.cols;
    cols[0].addLong((parts & collBit) != 0 ? 1 : 0);
    cols[1].addLong((parts & p2pBit) != 0 ? 1 : 0);
    byte[] b = bytes;
    int line = this.line;
    for (int c = RawLayout.FIRST_FIELD; c < columns; c++) {
      ColumnBuffer col = cols[c];
      if (stamp[c] != line) {
        col.addNull();
        continue;
      }
      int f = from[c];
      int t = to[c];
      int type = types[c];
      if (type == BIGINT || type == INT) {
        col.addLong(parseLong(b, f, t));
      } else if (type == TEXT) {
        text(col, b, f + 1, t - 1);
      } else if (type == DOUBLE) {
        col.addDouble(parseDouble(b, f, t));
      } else if (type == HUGE) {
        if (b[f] == '-') {
          long v = parseLong(b, f, t);
          col.addHuge(v >> 63, v);
        } else {
          col.addHuge(0, parseUnsigned(b, f, t));
        }
      } else if (type == BOOLEAN) {
        col.addLong(b[f] == 't' ? 1 : 0);
      } else { // a list of strings or an object: its JSON text
        col.addString(b, f, t - f);
      }
    }
    line++;
    try {
      out.endRow();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A string's body b[f, t) (without quotes), escapes decoded (the screen checked them). */
  static void text(ColumnBuffer col, byte[] b, int f, int t) {
    int escape = -1;
    for (int i = f; i < t; i++) {
      if (b[i] == '\\') {
        escape = i;
        break;
      }
    }
    if (escape < 0) {
      col.addString(b, f, t - f);
      return;
    }
    col.beginString();
    int run = f;
    int i = escape;
    while (i < t) {
      if (b[i] != '\\') {
        i++;
        continue;
      }
      col.textBytes(b, run, i - run);
      byte e = b[i + 1];
      i += 2;
      switch (e) {
        case 'b' -> col.textByte('\b');
        case 'f' -> col.textByte('\f');
        case 'n' -> col.textByte('\n');
        case 'r' -> col.textByte('\r');
        case 't' -> col.textByte('\t');
        case 'u' -> {
          int cp = 0;
          for (int k = 0; k < 4; k++) {
            cp = cp << 4 | Character.digit(b[i + k], 16);
          }
          i += 4;
          utf8(col, cp); // neither NUL nor a surrogate: the screen refuses those
        }
        default -> col.textByte(e); // '"', '\\', '/'
      }
      run = i;
    }
    col.textBytes(b, run, t - run);
    col.endString();
  }

  private static void utf8(ColumnBuffer col, int cp) {
    if (cp < 0x80) {
      col.textByte(cp);
    } else if (cp < 0x800) {
      col.textByte(0xC0 | cp >> 6);
      col.textByte(0x80 | (cp & 0x3F));
    } else {
      col.textByte(0xE0 | cp >> 12);
      col.textByte(0x80 | (cp >> 6 & 0x3F));
      col.textByte(0x80 | (cp & 0x3F));
    }
  }

  /** A JSON integer in the signed 64-bit range (the screen checked it). */
  static long parseLong(byte[] b, int f, int t) {
    boolean negative = b[f] == '-';
    long v = 0;
    for (int i = negative ? f + 1 : f; i < t; i++) {
      v = v * 10 - (b[i] - '0'); // negative, so that -2^63 fits
    }
    return negative ? v : -v;
  }

  /** A JSON integer from 0 to 2^64 - 1, as the 64 bits of an unsigned value. */
  static long parseUnsigned(byte[] b, int f, int t) {
    long v = 0;
    for (int i = f; i < t; i++) {
      v = v * 10 + (b[i] - '0');
    }
    return v;
  }

  /**
   * A JSON number (the screen checked its form: at most 20 integer digits, 40 fraction digits
   * and a two-digit exponent) to the nearest double. Exact when the digits fit 53 bits and the
   * power of ten is at most 10^22 (one correctly rounded operation on exact operands); else by
   * {@link Double#parseDouble}, which rounds correctly too. An integer written {@code -0} is 0:
   * DuckDB's reader takes it for the integer 0.
   */
  static double parseDouble(byte[] b, int f, int t) {
    int i = f;
    boolean negative = b[i] == '-';
    if (negative) {
      i++;
    }
    long m = 0;
    int exp10 = 0;
    boolean inexact = false;
    boolean integer = true;
    while (i < t && b[i] >= '0' && b[i] <= '9') {
      if (m < DIGIT_LIMIT) {
        m = m * 10 + (b[i] - '0');
      } else {
        exp10++;
        inexact |= b[i] != '0';
      }
      i++;
    }
    if (i < t && b[i] == '.') {
      integer = false;
      i++;
      while (i < t && b[i] >= '0' && b[i] <= '9') {
        if (m < DIGIT_LIMIT) {
          m = m * 10 + (b[i] - '0');
          exp10--;
        } else {
          inexact |= b[i] != '0';
        }
        i++;
      }
    }
    if (i < t && (b[i] == 'e' || b[i] == 'E')) {
      integer = false;
      i++;
      boolean down = b[i] == '-';
      if (b[i] == '-' || b[i] == '+') {
        i++;
      }
      int e = 0;
      while (i < t) {
        e = e * 10 + (b[i++] - '0');
      }
      exp10 += down ? -e : e;
    }
    if (integer && m == 0 && !inexact) {
      return 0.0; // "-0" too
    }
    if (!inexact && m <= 1L << 53 && exp10 >= -22 && exp10 <= 22) {
      double v = exp10 < 0 ? m / POW10[-exp10] : m * POW10[exp10];
      return negative ? -v : v;
    }
    return Double.parseDouble(new String(b, f, t - f, StandardCharsets.ISO_8859_1));
  }
}
