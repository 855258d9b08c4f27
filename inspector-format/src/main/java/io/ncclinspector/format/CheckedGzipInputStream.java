package io.ncclinspector.format;

import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Reads a gzip file of one or more members (RFC 1952) and checks all of it: each member's header,
 * its deflate data, its CRC-32 and length, and that nothing but members follows the first. The
 * project's recordings are written as a series of members (one per flush), and {@code gzip}
 * concatenates files so; every reader of such a file uses this stream.
 *
 * <p>{@link java.util.zip.GZIPInputStream} takes bytes after a member that do not start a gzip
 * header for the end of the file: a damaged second member silently ends the data there. Here
 * damage is a {@link GzipDamageException}, raised once every byte inflated before it has been
 * returned, and saying where (the member, its byte offset) and how much of the file was not read.
 * A file that merely ends early (in a member, or with zero bytes where the rest was never
 * written: a killed process, a crash) is {@linkplain GzipDamageException#truncated() truncated};
 * anything else (a bad header, corrupt deflate data, a CRC or length that does not match, other
 * bytes after a member) is corrupt.
 */
public final class CheckedGzipInputStream extends InputStream {
  private static final int FHCRC = 2;
  private static final int FEXTRA = 4;
  private static final int FNAME = 8;
  private static final int FCOMMENT = 16;
  private static final int RESERVED_FLAGS = 0xe0;

  private final InputStream in;
  private final long size;
  private final byte[] buf = new byte[1 << 16];
  private int pos;
  private int limit;
  /** Compressed bytes before {@code buf[0]}. */
  private long bufferStart;
  private boolean rawEof;
  private final Inflater inflater = new Inflater(true);
  private final CRC32 crc = new CRC32();
  /** Members started so far; the current one is number {@code members}. */
  private int members;
  private long memberStart;
  private long memberBytesOut;
  private boolean inMember;
  private boolean done;
  private GzipDamageException damage;
  private final byte[] one = new byte[1];

  /**
   * @param in the compressed bytes (closed with this stream)
   * @param size the file's size in bytes, for what a damage message says was not read; -1 if not
   *     known
   */
  public CheckedGzipInputStream(InputStream in, long size) {
    this.in = in;
    this.size = size;
  }

  /** A stream of unknown size. */
  public CheckedGzipInputStream(InputStream in) {
    this(in, -1);
  }

  /**
   * Reads the first member's header now rather than at the first {@link #read}, so that a file
   * that is empty or not gzip at all can be refused before anything else is done with it.
   *
   * @throws GzipDamageException if there is no valid first header
   */
  public void checkHeader() throws IOException {
    if (!inMember && members == 0 && !done) {
      startMember();
    }
  }

  /** Members begun so far (the one being read included). */
  public int members() {
    return members;
  }

  /** Compressed bytes consumed so far. */
  public long compressedOffset() {
    return bufferStart + pos;
  }

  @Override
  public int read() throws IOException {
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    if (damage != null) {
      throw damage;
    }
    if (len == 0) {
      return 0;
    }
    while (!done) {
      if (!inMember) {
        if (!startMember()) {
          return -1;
        }
        continue;
      }
      if (inflater.needsInput()) {
        if (pos == limit && !fill()) {
          throw damage(true, compressedOffset(), "ends inside member " + members
              + " (which starts at byte " + memberStart + ")");
        }
        inflater.setInput(buf, pos, limit - pos);
      }
      int n;
      try {
        n = inflater.inflate(b, off, len);
      } catch (DataFormatException e) {
        pos = limit - inflater.getRemaining();
        throw damage(false, compressedOffset(), "member " + members + " (which starts at byte "
            + memberStart + ") has corrupt data (" + e.getMessage() + ")");
      }
      pos = limit - inflater.getRemaining();
      if (n > 0) {
        crc.update(b, off, n);
        memberBytesOut += n;
        return n;
      }
      if (inflater.finished()) {
        endMember();
      } else if (inflater.needsDictionary()) {
        throw damage(false, compressedOffset(), "member " + members + " (which starts at byte "
            + memberStart + ") asks for a preset dictionary, which gzip has not");
      }
    }
    return -1;
  }

  /**
   * Starts the next member, or ends the stream cleanly at the end of the file after a member.
   *
   * @return false at the clean end
   */
  private boolean startMember() throws IOException {
    long start = compressedOffset();
    int id1 = nextByte();
    if (id1 < 0) {
      if (members == 0) {
        throw damage(true, start, "the file is empty: no gzip member");
      }
      done = true;
      return false;
    }
    int id2 = nextByte();
    if (id1 != 0x1f || id2 != 0x8b) {
      if (members == 0 && !(id1 == 0x1f && id2 < 0)) {
        throw damage(false, start, "not in gzip format (no gzip header at byte 0)");
      }
      if (id1 == 0x1f && id2 < 0) {
        throw damage(true, start, "ends inside the header of member " + (members + 1)
            + " (which starts at byte " + start + ")");
      }
      if (id1 == 0 && id2 <= 0 && restIsZeros()) {
        throw damage(true, start, "member " + members + " is followed by zero bytes from byte "
            + start + " on: the end of the file was never written");
      }
      throw damage(false, start, "the bytes after member " + members + " (from byte " + start
          + ") are not a gzip member");
    }
    members++;
    memberStart = start;
    crc.reset();
    crc.update(id1);
    crc.update(id2);
    int method = headerByte();
    int flags = headerByte();
    if (method != 8) {
      throw damage(false, start, "member " + members + " (at byte " + start
          + ") has compression method " + method + ", not deflate");
    }
    if ((flags & RESERVED_FLAGS) != 0) {
      throw damage(false, start, "member " + members + " (at byte " + start
          + ") has reserved header flags set");
    }
    for (int i = 0; i < 6; i++) {
      headerByte(); /* modification time, extra flags, operating system */
    }
    if ((flags & FEXTRA) != 0) {
      int n = headerByte() | headerByte() << 8;
      for (int i = 0; i < n; i++) {
        headerByte();
      }
    }
    if ((flags & FNAME) != 0) {
      while (headerByte() != 0) { /* the original file name */ }
    }
    if ((flags & FCOMMENT) != 0) {
      while (headerByte() != 0) { /* a comment */ }
    }
    if ((flags & FHCRC) != 0) {
      int expected = (int) crc.getValue() & 0xffff;
      int written = rawByte() | rawByte() << 8;
      if (written != expected) {
        throw damage(false, start, "member " + members + " (at byte " + start
            + ") has a header whose CRC does not match");
      }
    }
    crc.reset();
    inflater.reset();
    memberBytesOut = 0;
    inMember = true;
    return true;
  }

  /** Reads and checks the trailer of a member whose deflate data ended. */
  private void endMember() throws IOException {
    long expectedCrc = 0;
    for (int i = 0; i < 4; i++) {
      expectedCrc |= (long) rawByte() << (8 * i);
    }
    long expectedSize = 0;
    for (int i = 0; i < 4; i++) {
      expectedSize |= (long) rawByte() << (8 * i);
    }
    inMember = false;
    if (expectedCrc != crc.getValue()) {
      throw damage(false, compressedOffset(), "member " + members + " (which starts at byte "
          + memberStart + ") fails its CRC check: its data is damaged");
    }
    if (expectedSize != (memberBytesOut & 0xffffffffL)) {
      throw damage(false, compressedOffset(), "member " + members + " (which starts at byte "
          + memberStart + ") is not as long as its trailer says");
    }
  }

  /** A byte of a header, counted into the header CRC; the end of the file is truncation. */
  private int headerByte() throws IOException {
    int b = rawByte();
    crc.update(b);
    return b;
  }

  /** A byte of a member's header or trailer; the end of the file here is truncation. */
  private int rawByte() throws IOException {
    int b = nextByte();
    if (b < 0) {
      throw damage(true, compressedOffset(), "ends inside the " + (inMember ? "trailer" : "header")
          + " of member " + members + " (which starts at byte " + memberStart + ")");
    }
    return b;
  }

  /** The next compressed byte, or -1 at the end of the file. */
  private int nextByte() throws IOException {
    if (pos == limit && !fill()) {
      return -1;
    }
    return buf[pos++] & 0xff;
  }

  /** Whether every byte from here to the end of the file is zero (it consumes them). */
  private boolean restIsZeros() throws IOException {
    while (true) {
      while (pos < limit) {
        if (buf[pos++] != 0) {
          return false;
        }
      }
      if (!fill()) {
        return true;
      }
    }
  }

  /**
   * Reads more compressed bytes into the buffer, keeping the unread ones.
   *
   * @return false at the end of the file with nothing unread
   */
  private boolean fill() throws IOException {
    if (pos < limit) {
      return true;
    }
    if (rawEof) {
      return false;
    }
    bufferStart += limit;
    pos = 0;
    limit = 0;
    int n;
    do {
      n = in.read(buf, 0, buf.length);
    } while (n == 0);
    if (n < 0) {
      rawEof = true;
      return false;
    }
    limit = n;
    return true;
  }

  /**
   * Records the damage: reading stops for good.
   *
   * @param at the compressed byte offset where reading stopped
   */
  private GzipDamageException damage(boolean truncated, long at, String why) {
    String lost = truncated || size < 0 ? "" : "; reading stopped at byte " + at + ": "
        + Math.max(0, size - at) + " of " + size + " compressed bytes not read";
    damage = new GzipDamageException(truncated, members, at,
        (truncated ? "gzip stream ends early (file truncated): " : "gzip data corrupt: ") + why
            + lost);
    done = true;
    return damage;
  }

  @Override
  public void close() throws IOException {
    inflater.end();
    in.close();
  }
}
