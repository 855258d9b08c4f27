package io.ncclinspector.report.ingest.parquet;

/**
 * One column's values of the row group being filled, PLAIN-encoded as they come. A row group
 * holds few rows ({@link ParquetFileWriter}), so that every column's buffers stay in the
 * processor's cache while rows are added across them. Every row gets exactly one call: a value
 * or {@link #addNull}. Allocates nothing per value once its buffers have grown.
 */
public final class ColumnBuffer {
  final ColumnSpec spec;
  /** Per row: 1 when it has a value (the definition level). */
  private final byte[] defined;
  /** The present values, PLAIN-encoded (booleans: one per byte until the page is made). */
  private final Bytes values;
  private int rows;
  private int present;
  private int openString = -1;

  ColumnBuffer(ColumnSpec spec, int capacity) {
    this.spec = spec;
    this.defined = new byte[capacity];
    this.values = new Bytes(capacity * (spec.kind() == ColumnSpec.Kind.STRING ? 24 : 16));
  }

  public ColumnSpec spec() {
    return spec;
  }

  int rows() {
    return rows;
  }

  public void addNull() {
    if (spec.required()) {
      throw new IllegalStateException("no value for required column " + spec.name());
    }
    defined[rows++] = 0;
  }

  /** A BOOLEAN (0 or 1), INT32 or INT64 value; for DECIMAL38, the value sign-extended. */
  public void addLong(long v) {
    switch (spec.kind()) {
      case INT32 -> values.i32((int) v);
      case BOOLEAN -> values.u8((int) v & 1);
      case DECIMAL38 -> {
        values.i64(Long.reverseBytes(v >> 63));
        values.i64(Long.reverseBytes(v));
      }
      default -> values.i64(v);
    }
    present++;
    defined[rows++] = 1;
  }

  public void addDouble(double v) {
    values.i64(Double.doubleToRawLongBits(v));
    present++;
    defined[rows++] = 1;
  }

  /** A DECIMAL38 value: high and low 64 bits of the two's complement, big-endian. */
  public void addHuge(long hi, long lo) {
    values.i64(Long.reverseBytes(hi));
    values.i64(Long.reverseBytes(lo));
    present++;
    defined[rows++] = 1;
  }

  /**
   * Starts a STRING value; append its UTF-8 bytes with {@link #textByte} and {@link #textBytes},
   * end it with {@link #endString}.
   */
  public void beginString() {
    openString = values.size();
    values.i32(0);
  }

  /** Appends one byte to the open string. */
  public void textByte(int v) {
    values.u8(v);
  }

  /** Appends bytes to the open string. */
  public void textBytes(byte[] b, int from, int length) {
    values.bytes(b, from, length);
  }

  public void endString() {
    values.i32At(openString, values.size() - openString - 4);
    openString = -1;
    present++;
    defined[rows++] = 1;
  }

  /** A whole STRING value. */
  public void addString(byte[] b, int from, int length) {
    values.i32(length);
    values.bytes(b, from, length);
    present++;
    defined[rows++] = 1;
  }

  void clear() {
    rows = 0;
    present = 0;
    values.clear();
  }

  /** The page's body: definition levels (unless required), then the values, PLAIN. */
  void encode(Bytes page) {
    if (!spec.required()) {
      int at = page.size();
      page.i32(0); // the levels' length, filled in below
      int start = page.size();
      if (present == rows || present == 0) {
        page.varint((long) rows << 1); // one RLE run of the one level
        page.u8(present == 0 ? 0 : 1);
      } else {
        int groups = (rows + 7) >>> 3;
        page.varint((long) groups << 1 | 1); // one bit-packed run, 8 levels a byte
        for (int g = 0; g < groups; g++) {
          int bits = 0;
          for (int i = 0; i < 8 && 8 * g + i < rows; i++) {
            bits |= defined[8 * g + i] << i;
          }
          page.u8(bits);
        }
      }
      page.i32At(at, page.size() - start);
    }
    if (spec.kind() == ColumnSpec.Kind.BOOLEAN) {
      byte[] v = values.array();
      for (int g = 0; g < present; g += 8) {
        int bits = 0;
        for (int i = 0; i < 8 && g + i < present; i++) {
          bits |= (v[g + i] & 1) << i;
        }
        page.u8(bits);
      }
    } else {
      page.append(values);
    }
  }
}
