package io.ncclinspector.internal.output;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Appends to a file opened with {@code O_DIRECT}: the bytes go from an aligned buffer of this
 * channel to the disk, not through the page cache. On the development VM the kernel's page-cache
 * write path costs 0.17–1.6 µs of CPU per 850-byte JSON line from one minute to the next, and
 * {@code O_DIRECT} about 0.05–0.07 µs (BENCHMARKS.md); a JSON log that nobody rereads while the job
 * runs also stays out of the page cache the training job's data lives in.
 *
 * <p>{@code O_DIRECT} writes whole aligned blocks. Every {@link #write} writes all it returns: its
 * whole blocks, and the file's last partial block padded with newlines, so that the file never
 * holds fewer bytes than were accepted. The next write writes that last block again with the
 * bytes that follow, over the padding. The padding is cut off at {@link #settle} (the owner's
 * flush, at every dump interval) and at {@link #close}, not after every write: on the
 * development VM the cut, a metadata change of the file system, made a 1 MiB write take
 * 833–1,080 µs instead of 627–761 (BENCHMARKS.md, "The appending thread's chunks"). In between, the file
 * ends in less than a block of blank lines; a process that dies there leaves them behind.
 *
 * <p>Not thread safe: {@link AccountedFile} calls it from one thread.
 */
final class DirectAppendChannel implements OutputChannel {
  /** The most one write takes; the rest of a larger buffer is left for the next call. */
  static final int MAX_WRITE = 2 << 20;

  private final FileChannel channel;
  private final int block;
  /* staging[0, tail) holds the file's bytes from tailStart to its end (less than one block). */
  private final ByteBuffer staging;
  private long tailStart;
  private int tail;
  /* The file's bytes that were accepted (its size, but for padding not cut yet). */
  private long end;
  /* The file may hold bytes past end: the last write's padding, or what a failed cut left. */
  private boolean untrimmed;
  /* Set when a failed write left the staging buffer unlike the file's last block. */
  private boolean stale;

  /**
   * @param channel opened with {@code ExtendedOpenOption.DIRECT}, for reading and writing, empty
   * @param block the alignment O_DIRECT needs there (a power of two, at least 512)
   */
  DirectAppendChannel(FileChannel channel, int block) {
    this.channel = channel;
    this.block = block;
    this.staging = ByteBuffer.allocateDirect(MAX_WRITE + 2 * block).alignedSlice(block);
  }

  @Override
  public int write(ByteBuffer src) throws IOException {
    if (stale) {
      resync();
    }
    int n = Math.min(src.remaining(), MAX_WRITE - block);
    ByteBuffer part = src.duplicate();
    part.limit(part.position() + n);
    staging.clear().position(tail);
    staging.put(part);
    int total = tail + n;
    int padded = (total + block - 1) / block * block;
    for (int i = total; i < padded; i++) {
      staging.put(i, (byte) '\n');
    }
    staging.position(0).limit(padded);
    long at = tailStart;
    try {
      while (staging.hasRemaining()) {
        at += channel.write(staging, at);
      }
    } catch (IOException e) {
      /* What reached the file of the bytes, never of the padding; the padding is cut if it can be
         (AccountedFile cuts back to whole lines from there). */
      end = Math.max(end, Math.min(at, tailStart + total));
      stale = true; /* the staging buffer no longer mirrors the file's last block */
      untrimmed = true;
      try {
        channel.truncate(end);
        untrimmed = false;
        resync();
      } catch (IOException cannotCut) {
        e.addSuppressed(cannotCut);
      }
      throw e;
    }
    end = tailStart + total;
    untrimmed = padded != total; /* a write ending on a block boundary covered any older padding */
    /* The partial last block moves to the front for the next write. */
    int whole = total / block * block;
    staging.put(0, staging, whole, total - whole);
    tailStart += whole;
    tail = total - whole;
    src.position(src.position() + n);
    return n;
  }

  /** The bytes accepted so far (the file may hold padding beyond them until {@link #settle}). */
  @Override
  public long size() {
    return end;
  }

  @Override
  public void truncate(long size) throws IOException {
    channel.truncate(size);
    end = Math.min(end, size);
    untrimmed = size > end;
    stale = true;
    resync();
  }

  /** Reads the file's last partial block back into the staging buffer: the next write starts there. */
  private void resync() throws IOException {
    tailStart = end / block * block;
    tail = (int) (end - tailStart);
    staging.clear().limit(block);
    /* One aligned read of the whole block: it returns the bytes up to the end of the file. */
    if (tail > 0 && channel.read(staging, tailStart) < tail) {
      throw new IOException("could not read back the last " + tail + " bytes of the file");
    }
    stale = false;
  }

  /** Cuts the padding after the last accepted byte, if the file has any. */
  @Override
  public void settle() throws IOException {
    if (untrimmed) {
      channel.truncate(end);
      untrimmed = false;
    }
  }

  @Override
  public void close() throws IOException {
    try {
      settle();
    } finally {
      channel.close();
    }
  }
}
