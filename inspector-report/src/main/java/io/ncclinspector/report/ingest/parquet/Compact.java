package io.ncclinspector.report.ingest.parquet;

import java.nio.charset.StandardCharsets;

/**
 * Apache Thrift's compact protocol, the few parts Parquet's page headers and footer use: structs
 * of i32, i64, binary, list and struct fields. Each field header holds the difference to the
 * previous field's id (fields are written in increasing id order here) and its type.
 */
final class Compact {
  static final int I32 = 5;
  static final int I64 = 6;
  static final int BINARY = 8;
  static final int LIST = 9;
  static final int STRUCT = 12;

  private final Bytes out;
  /** The last field id of each open struct. */
  private final int[] lastId = new int[16];
  private int depth;

  Compact(Bytes out) {
    this.out = out;
  }

  private void header(int id, int type) {
    int delta = id - lastId[depth];
    if (delta > 0 && delta <= 15) {
      out.u8(delta << 4 | type);
    } else {
      out.u8(type);
      out.varint(zigzag(id)); // the long form: the id as a zigzag i16
    }
    lastId[depth] = id;
  }

  private static long zigzag(long v) {
    return (v << 1) ^ (v >> 63);
  }

  Compact i32(int id, int v) {
    header(id, I32);
    out.varint(zigzag(v));
    return this;
  }

  Compact i64(int id, long v) {
    header(id, I64);
    out.varint(zigzag(v));
    return this;
  }

  Compact string(int id, String v) {
    header(id, BINARY);
    writeString(v);
    return this;
  }

  private void writeString(String v) {
    byte[] b = v.getBytes(StandardCharsets.UTF_8);
    out.varint(b.length);
    out.bytes(b, 0, b.length);
  }

  /** Opens a struct field; close it with {@link #end}. */
  Compact struct(int id) {
    header(id, STRUCT);
    return open();
  }

  /** Opens a struct that is a list element (no field header). */
  Compact open() {
    lastId[++depth] = 0;
    return this;
  }

  /** Closes the innermost struct (the top-level one too). */
  Compact end() {
    out.u8(0);
    if (depth > 0) {
      depth--;
    }
    return this;
  }

  /** Opens a list field of {@code size} elements of {@code type}. */
  Compact list(int id, int type, int size) {
    header(id, LIST);
    if (size < 15) {
      out.u8(size << 4 | type);
    } else {
      out.u8(0xF0 | type);
      out.varint(size);
    }
    return this;
  }

  /** A list element of type i32. */
  Compact i32Element(int v) {
    out.varint(zigzag(v));
    return this;
  }

  /** A list element of type binary. */
  Compact stringElement(String v) {
    writeString(v);
    return this;
  }
}
