package io.ncclinspector.examples.nccl;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * A spinning barrier between the rank processes of one host, on a small memory-mapped file. Used
 * before each timed operation so that all ranks launch it within a microsecond or two of each
 * other: the CUDA-event pair around the call then brackets the kernel itself rather than the wait
 * for a late peer. (An NCCL barrier would add operations of its own to the communicator under
 * test.)
 *
 * <p>The file holds a 64-bit arrival counter, an abort word and the count of {@link #anyFlag} votes. Barrier number {@code g} (counted by each rank)
 * is passed once the counter reaches {@code g * ranks}; the counter only grows, so no reset is
 * needed between barriers. Every rank must use a fresh file per run (see {@link #fileFor}).
 */
final class ShmBarrier implements AutoCloseable {
  private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
  private static final int ARRIVALS = 0;
  private static final int ABORTED = 8;
  private static final int TRUES = 16;

  private final FileChannel channel;
  private final MappedByteBuffer map;
  private final int ranks;
  private final long timeoutNanos;
  private long generation;
  private long truesSeen;

  private ShmBarrier(FileChannel channel, MappedByteBuffer map, int ranks, Duration timeout) {
    this.channel = channel;
    this.map = map;
    this.ranks = ranks;
    this.timeoutNanos = timeout.toNanos();
  }

  /** A file name unique to one run: next to the rendezvous file, named by a token all ranks share. */
  static Path fileFor(Path idFile, String runToken) {
    return idFile.resolveSibling(idFile.getFileName() + "-" + runToken + ".barrier");
  }

  static ShmBarrier open(Path file, int ranks, Duration timeout) throws IOException {
    if (ranks < 1) {
      throw new IllegalArgumentException("ranks must be >= 1");
    }
    FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    /* Mapping past the end extends the file with zeros; concurrent extension by several ranks is harmless. */
    MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, 64);
    return new ShmBarrier(ch, m, ranks, timeout);
  }

  /**
   * Waits until every rank has arrived at this barrier. Throws if another rank gave up
   * ({@link #abort}) or the timeout passes.
   */
  void await() {
    long target = ++generation * ranks;
    /* getAndAdd is a full fence: this rank's earlier writes are ordered before its arrival. */
    LONGS.getAndAdd(map, ARRIVALS, 1L);
    long deadline = 0;
    int spins = 0;
    /* getAcquire pairs with the other ranks' getAndAdd: after the barrier their pre-barrier work is visible. */
    while ((long) LONGS.getAcquire(map, ARRIVALS) < target) {
      Thread.onSpinWait();
      if ((++spins & 1023) == 0) {
        if ((long) LONGS.getOpaque(map, ABORTED) != 0) {
          throw new IllegalStateException("another rank aborted the barrier");
        }
        long now = System.nanoTime();
        if (deadline == 0) {
          deadline = now + timeoutNanos;
        } else if (now > deadline) {
          throw new IllegalStateException("barrier " + generation + ": only " + ((long) LONGS.getOpaque(map, ARRIVALS)
              - (generation - 1) * ranks) + " of " + ranks + " ranks arrived within " + Duration.ofNanos(timeoutNanos));
        }
      }
    }
  }

  /**
   * A collective "or": every rank calls it with its own flag and all get the same answer, true if
   * any rank's flag was set. (The count of set flags only grows; the second barrier keeps a fast
   * rank's next call from adding before the others have read this one's total.)
   */
  boolean anyFlag(boolean flag) {
    if (flag) {
      LONGS.getAndAdd(map, TRUES, 1L);
    }
    await();
    long total = (long) LONGS.getAcquire(map, TRUES);
    await();
    boolean any = total > truesSeen;
    truesSeen = total;
    return any;
  }

  /** Tells the other ranks to stop waiting (this rank failed). */
  void abort() {
    LONGS.setOpaque(map, ABORTED, 1L);
  }

  long generation() {
    return generation;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
