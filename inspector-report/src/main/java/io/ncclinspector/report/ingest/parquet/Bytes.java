package io.ncclinspector.report.ingest.parquet;

import java.util.Arrays;

/** A growable byte array with the little-endian and variable-length writes Parquet needs. */
final class Bytes {
  private byte[] data;
  private int size;

  Bytes(int capacity) {
    data = new byte[Math.max(16, capacity)];
  }

  int size() {
    return size;
  }

  byte[] array() {
    return data;
  }

  void clear() {
    size = 0;
  }

  private void room(int n) {
    if (size + n > data.length) {
      long wanted = Math.max((long) data.length * 2, (long) size + n);
      if (wanted > Integer.MAX_VALUE - 16) {
        throw new IllegalStateException("a Parquet page over 2 GiB");
      }
      data = Arrays.copyOf(data, (int) wanted);
    }
  }

  void u8(int v) {
    room(1);
    data[size++] = (byte) v;
  }

  void bytes(byte[] b, int from, int length) {
    room(length);
    System.arraycopy(b, from, data, size, length);
    size += length;
  }

  void append(Bytes other) {
    bytes(other.data, 0, other.size);
  }

  void i32(int v) {
    room(4);
    data[size] = (byte) v;
    data[size + 1] = (byte) (v >>> 8);
    data[size + 2] = (byte) (v >>> 16);
    data[size + 3] = (byte) (v >>> 24);
    size += 4;
  }

  void i64(long v) {
    room(8);
    for (int i = 0; i < 8; i++) {
      data[size + i] = (byte) (v >>> (8 * i));
    }
    size += 8;
  }

  /** Unsigned LEB128, as Thrift's compact protocol and Parquet's run headers write integers. */
  void varint(long v) {
    room(10);
    while ((v & ~0x7FL) != 0) {
      data[size++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    data[size++] = (byte) v;
  }

  /** Overwrites four bytes at {@code at} with v, little-endian. */
  void i32At(int at, int v) {
    data[at] = (byte) v;
    data[at + 1] = (byte) (v >>> 8);
    data[at + 2] = (byte) (v >>> 16);
    data[at + 3] = (byte) (v >>> 24);
  }
}
