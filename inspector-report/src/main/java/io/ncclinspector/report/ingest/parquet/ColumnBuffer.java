package io.ncclinspector.report.ingest.parquet;

/**
 * One column's values of the row group being filled, PLAIN-encoded into a page when the group is
 * written. Every row gets exactly one call: a value or {@link #addNull}. Allocates nothing per
 * value once its arrays have grown to the group's size.
 */
public final class ColumnBuffer {
  final ColumnSpec spec;
  private final int capacity;
  /** Per row: 1 when it has a value (the definition level). */
  private final byte[] defined;
  private final long[] values;
  private final long[] high;
  private final Bytes text;
  private int rows;
  private int present;
  private int openString = -1;

  ColumnBuffer(ColumnSpec spec, int capacity) {
    this.spec = spec;
    this.capacity = capacity;
    this.defined = new byte[capacity];
    boolean numeric = spec.kind() != ColumnSpec.Kind.STRING;
    this.values = numeric ? new long[capacity] : null;
    this.high = spec.kind() == ColumnSpec.Kind.DECIMAL38 ? new long[capacity] : null;
    this.text = numeric ? null : new Bytes(capacity * 16);
  }

  public ColumnSpec spec() {
    return spec;
  }

  int rows() {
    return rows;
  }

  private void check() {
    if (rows >= capacity) {
      throw new IllegalStateException("row group full: " + spec.name());
    }
  }

  public void addNull() {
    check();
    if (spec.required()) {
      throw new IllegalStateException("no value for required column " + spec.name());
    }
    defined[rows++] = 0;
  }

  /** A BOOLEAN (0 or 1), INT32 or INT64 value; for DECIMAL38, the value's sign-extended 64 bits. */
  public void addLong(long v) {
    check();
    values[present] = v;
    if (high != null) {
      high[present] = v >> 63;
    }
    present++;
    defined[rows++] = 1;
  }

  public void addDouble(double v) {
    addLong(Double.doubleToRawLongBits(v));
  }

  /** A DECIMAL38 value: high and low 64 bits of the two's complement. */
  public void addHuge(long hi, long lo) {
    check();
    values[present] = lo;
    high[present] = hi;
    present++;
    defined[rows++] = 1;
  }

  /** Starts a STRING value; append its UTF-8 bytes with {@link #text}, end it with {@link #endString}. */
  public void beginString() {
    check();
    openString = text.size();
    text.i32(0);
  }

  /** Where the open string's bytes go. */
  public Bytes text() {
    return text;
  }

  public void endString() {
    text.i32At(openString, text.size() - openString - 4);
    openString = -1;
    present++;
    defined[rows++] = 1;
  }

  /** A whole STRING value. */
  public void addString(byte[] b, int from, int length) {
    beginString();
    text.bytes(b, from, length);
    endString();
  }

  void clear() {
    rows = 0;
    present = 0;
    if (text != null) {
      text.clear();
    }
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
    switch (spec.kind()) {
      case BOOLEAN -> {
        for (int g = 0; g < present; g += 8) {
          int bits = 0;
          for (int i = 0; i < 8 && g + i < present; i++) {
            bits |= (int) (values[g + i] & 1) << i;
          }
          page.u8(bits);
        }
      }
      case INT32 -> {
        for (int i = 0; i < present; i++) {
          page.i32((int) values[i]);
        }
      }
      case INT64, DOUBLE -> {
        for (int i = 0; i < present; i++) {
          page.i64(values[i]);
        }
      }
      case STRING -> page.append(text);
      case DECIMAL38 -> {
        for (int i = 0; i < present; i++) {
          page.i64(Long.reverseBytes(high[i]));
          page.i64(Long.reverseBytes(values[i]));
        }
      }
    }
  }
}
