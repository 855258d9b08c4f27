package io.ncclinspector.report.ingest.parquet;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/** A growable byte array with the little-endian and variable-length writes Parquet needs. */
final class Bytes {
  private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class,
      ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class,
      ByteOrder.LITTLE_ENDIAN);
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

  /** Makes room for n more bytes. */
  void room(int n) {
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
    INT.set(data, size, v);
    size += 4;
  }

  void i64(long v) {
    room(8);
    LONG.set(data, size, v);
    size += 8;
  }

  /** Values, eight bytes each, little-endian. */
  void i64s(long[] values, int count) {
    room(8 * count);
    for (int i = 0; i < count; i++) {
      LONG.set(data, size + 8 * i, values[i]);
    }
    size += 8 * count;
  }

  /** Values' low 32 bits, four bytes each, little-endian. */
  void i32s(long[] values, int count) {
    room(4 * count);
    for (int i = 0; i < count; i++) {
      INT.set(data, size + 4 * i, (int) values[i]);
    }
    size += 4 * count;
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
    INT.set(data, at, v);
  }
}
