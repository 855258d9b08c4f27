package io.ncclinspector.internal;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.NumberOutput;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * The part of Jackson's {@code JsonGenerator} that {@link JsonLinesWriter} uses, for its one
 * fixed document shape: objects, arrays, names and values pre-encoded as
 * {@link SerializableString}s (their quoted UTF-8 bytes, cached by Jackson), numbers formatted by
 * Jackson's {@link NumberOutput}, raw fragments. It writes the same bytes as Jackson's UTF-8
 * generator does for these calls (root values without separator, non-finite doubles as strings,
 * doubles by the fast writer), without the generator's per-token context and feature checks: the
 * writer's calls are always well formed. Bytes collect in a buffer that goes to the stream when
 * full and at {@link #flush}.
 */
final class JsonLineEncoder {
  private static final int BUFFER_BYTES = 8192;
  /** Deepest nesting the writer uses is 4 (line, perf, trace, channel): the bit stack holds 64. */
  private static final int MAX_DEPTH = 64;

  private final OutputStream out;
  private byte[] buf = new byte[BUFFER_BYTES];
  private int len;
  /* Bit d of 'written': the container at depth d has a member already (the next needs a comma). */
  private long written;
  private int depth;
  /** A name was written; its value comes next, without a separator. */
  private boolean afterName;

  JsonLineEncoder(OutputStream out) {
    this.out = out;
  }

  void writeStartObject() throws IOException {
    beforeValue(1);
    buf[len++] = '{';
    push();
  }

  void writeEndObject() throws IOException {
    ensure(1);
    buf[len++] = '}';
    depth--;
  }

  void writeStartArray() throws IOException {
    beforeValue(1);
    buf[len++] = '[';
    push();
  }

  void writeEndArray() throws IOException {
    ensure(1);
    buf[len++] = ']';
    depth--;
  }

  void writeFieldName(SerializableString name) throws IOException {
    byte[] quoted = name.asQuotedUTF8();
    ensure(quoted.length + 4);
    putName(quoted);
    afterName = true;
  }

  /** A name and its number: the same bytes as {@link #writeFieldName} then {@link #writeNumber(long)}. */
  void writeNumberField(SerializableString name, long v) throws IOException {
    byte[] quoted = name.asQuotedUTF8();
    ensure(quoted.length + 25);
    putName(quoted);
    len = NumberOutput.outputLong(v, buf, len);
  }

  /** A name and its number: the same bytes as {@link #writeFieldName} then {@link #writeNumber(int)}. */
  void writeNumberField(SerializableString name, int v) throws IOException {
    byte[] quoted = name.asQuotedUTF8();
    ensure(quoted.length + 16);
    putName(quoted);
    len = NumberOutput.outputInt(v, buf, len);
  }

  /** A name and its string: the same bytes as {@link #writeFieldName} then {@link #writeString}. */
  void writeStringField(SerializableString name, SerializableString value) throws IOException {
    byte[] quoted = name.asQuotedUTF8();
    byte[] text = value.asQuotedUTF8();
    ensure(quoted.length + text.length + 6);
    putName(quoted);
    putQuoted(text);
  }

  /** The separator, the quoted name and its colon; room for them was ensured. */
  private void putName(byte[] quoted) {
    if ((written & (1L << depth)) != 0) {
      buf[len++] = ',';
    } else {
      written |= 1L << depth;
    }
    buf[len++] = '"';
    System.arraycopy(quoted, 0, buf, len, quoted.length);
    len += quoted.length;
    buf[len++] = '"';
    buf[len++] = ':';
  }

  /** An encoded string between its quotes; room for them was ensured. */
  private void putQuoted(byte[] text) {
    buf[len++] = '"';
    System.arraycopy(text, 0, buf, len, text.length);
    len += text.length;
    buf[len++] = '"';
  }

  void writeString(SerializableString value) throws IOException {
    byte[] quoted = value.asQuotedUTF8();
    beforeValue(quoted.length + 2);
    putQuoted(quoted);
  }

  void writeNumber(long v) throws IOException {
    beforeValue(20);
    len = NumberOutput.outputLong(v, buf, len);
  }

  void writeNumber(int v) throws IOException {
    beforeValue(11);
    len = NumberOutput.outputInt(v, buf, len);
  }

  /** A number of millionths with its six decimals ({@code 25150000} as {@code 25.150000}). */
  void writeNumberMillionths(long millionths) throws IOException {
    beforeValue(22);
    long abs = Math.abs(millionths); /* no Long.MIN_VALUE: the writer passes |v| < 9e18 */
    if (millionths < 0) {
      buf[len++] = '-';
    }
    len = NumberOutput.outputLong(abs / 1_000_000, buf, len);
    buf[len++] = '.';
    int fraction = (int) (abs % 1_000_000);
    for (int i = len + 5; i >= len; i--) {
      buf[i] = (byte) ('0' + fraction % 10);
      fraction /= 10;
    }
    len += 6;
  }

  /** A double as Jackson writes it with its fast writer: non-finite values as strings. */
  void writeNumber(double v) throws IOException {
    String text = NumberOutput.toString(v, true);
    if (NumberOutput.notFinite(v)) {
      beforeValue(text.length() + 2);
      buf[len++] = '"';
      ascii(text);
      buf[len++] = '"';
    } else {
      beforeValue(text.length());
      ascii(text);
    }
  }

  void writeBoolean(boolean v) throws IOException {
    beforeValue(5);
    ascii(v ? "true" : "false");
  }

  /** A value given as its encoded text (an object rendered once). */
  void writeRawValue(SerializableString raw) throws IOException {
    byte[] bytes = raw.asUnquotedUTF8();
    beforeValue(bytes.length);
    System.arraycopy(bytes, 0, buf, len, bytes.length);
    len += bytes.length;
  }

  /** Text as it is, outside the structure (the rest of a raw value, the end of a line). */
  void writeRaw(SerializableString raw) throws IOException {
    byte[] bytes = raw.asUnquotedUTF8();
    ensure(bytes.length);
    System.arraycopy(bytes, 0, buf, len, bytes.length);
    len += bytes.length;
  }

  /** Hands the buffered bytes to the stream (and flushes it). */
  void flush() throws IOException {
    flushBuffer();
    out.flush();
  }

  /** Hands the buffered bytes to the stream; does not close it. */
  void close() throws IOException {
    flushBuffer();
  }

  private void ascii(String s) {
    for (int i = 0; i < s.length(); i++) {
      buf[len++] = (byte) s.charAt(i);
    }
  }

  /** Room for a value of up to {@code bytes} and its separator; writes the separator. */
  private void beforeValue(int bytes) throws IOException {
    ensure(bytes + 1);
    if (afterName) {
      afterName = false;
    } else if (depth > 0) { /* an array element (root values have no separator) */
      if ((written & (1L << depth)) != 0) {
        buf[len++] = ',';
      } else {
        written |= 1L << depth;
      }
    }
  }

  private void push() {
    depth++;
    if (depth >= MAX_DEPTH) {
      throw new IllegalStateException("JSON nested deeper than " + MAX_DEPTH);
    }
    written &= ~(1L << depth);
  }

  private void ensure(int bytes) throws IOException {
    if (len + bytes > buf.length) {
      flushBuffer();
      if (bytes > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(bytes, buf.length * 2));
      }
    }
  }

  private void flushBuffer() throws IOException {
    if (len > 0) {
      out.write(buf, 0, len);
      len = 0;
    }
  }
}
