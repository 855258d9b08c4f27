package io.ncclinspector.internal.output;

import java.io.OutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends whole units (JSON lines) to {@link AccountedFile}s on a thread of its own, so that the
 * thread that encodes them does not also pay the kernel's copy of every byte into the page cache:
 * on the 2-vCPU VM of BENCHMARKS.md that copy is 0.4 to 1.5 µs of a record's ~850 bytes, as much as
 * or three times more than encoding it, and one thread doing both was the JSON path's limit.
 *
 * <p>The encoding thread writes a unit's bytes to {@link #stream(int)} of the file it goes to and
 * ends it with {@link #endUnit}; each file's units collect in a chunk of their own that is handed
 * over once it holds {@value #HANDOFF_BYTES} bytes. This thread gives the units to their file in
 * one call ({@link AccountedFile#appendUnits}), with the same result as writing each unit to the
 * file's own {@code stream()} and ending it with its {@code endUnit}, so every rule of
 * {@link AccountedFile} (whole units, holding while a file cannot be written, counting what is
 * lost) is unchanged; the files are only ever touched by this thread once it has started.
 *
 * <p>Bounded: besides the chunk each file collects in, up to {@value #CHUNKS} circulate, made as
 * the encoder first needs them, each growing to the size its units need (a job that writes a few
 * lines a second keeps one or two small ones); an encoder that gets ahead of all of them waits for
 * a free one (the encoder runs behind its own bounded queue, which drops and counts, so nobody
 * upstream waits). {@link #flush} and {@link #close} return once everything
 * handed over is appended and the files are flushed (or closed). Units that never reached a file
 * because a waiting encoder was interrupted (its sink abandoned at close) are counted in
 * {@link #lost()}.
 *
 * <p>The encoder side ({@link #stream}, {@link #endUnit}, {@link #flush}, {@link #close}) is
 * single-threaded.
 */
public final class AppendThread implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AppendThread.class);
  /**
   * Bytes a chunk collects before it is handed over. Each hand-over wakes this thread; at 500k
   * lines a second, 64 KiB chunks woke it 7,000 times a second, and 256 KiB ones took a quarter
   * less of its CPU a line (BENCHMARKS.md, "The appending thread's chunks").
   */
  static final int HANDOFF_BYTES = 1 << 18;
  /**
   * Chunks in circulation beside the one each file collects in, at most: 2 MiB, twice the write
   * of a file opened with {@code O_DIRECT}, which waits for the disk (about 0.7 ms a MiB on the
   * development VM, 1.5 GB/s). With 256 KiB in circulation, the encoder waited for a free chunk
   * 22–40 % of its time at 500k lines a second while the disk wrote, and the CPU it could have
   * used went idle (BENCHMARKS.md, "The appending thread's chunks").
   */
  static final int CHUNKS = (2 << 20) / HANDOFF_BYTES;
  /** A new chunk's room; it grows (and keeps) what its units need, up to about a hand-over. */
  private static final int FIRST_BYTES = 1 << 14;

  private final List<AccountedFile> files;
  private final BlockingQueue<Chunk> free;
  private final BlockingQueue<Object> work;
  private final Thread thread;
  private final Stream[] streams;
  private final AtomicLong lost = new AtomicLong();
  /** The chunk each file's units collect in. */
  private final Chunk[] current;
  /** Chunks made for circulation so far (encoder side), at most {@link #CHUNKS}. */
  private int made;
  private boolean closed;
  /** {@link #closeLater} was called: the thread ends once its queue is empty. */
  private volatile boolean closeLater;

  /** Starts the thread; {@code files} are indexed by the target given to {@link #endUnit}. */
  public AppendThread(String threadName, List<AccountedFile> files) {
    this.files = List.copyOf(files);
    int n = this.files.size();
    free = new ArrayBlockingQueue<>(CHUNKS + n);
    work = new ArrayBlockingQueue<>(CHUNKS + n + 1);
    current = new Chunk[n];
    streams = new Stream[n];
    for (int i = 0; i < n; i++) {
      current[i] = new Chunk();
      streams[i] = new Stream(i);
    }
    thread = new Thread(this::run, threadName);
    thread.setDaemon(true);
    thread.start(); /* happens-before: the files as set up so far are seen by the thread */
  }

  /** Where the bytes of units for file {@code target} go. Its flush() and close() do nothing. */
  public OutputStream stream(int target) {
    return streams[checked(target)];
  }

  /** Ends the unit written to {@code stream(target)} since its previous one: {@code items} items. */
  public void endUnit(int target, int items) {
    Chunk c = current[checked(target)];
    c.endUnit(items);
    if (c.length >= HANDOFF_BYTES) {
      handOver(target);
    }
  }

  private int checked(int target) {
    if (target < 0 || target >= files.size()) {
      throw new IllegalArgumentException("no file " + target + " of " + files.size());
    }
    return target;
  }

  /**
   * Hands over what is collected and returns once it is appended and every file flushed (written,
   * or held where a file cannot be written; see {@link AccountedFile#flush}).
   */
  public void flush() {
    if (!closed) {
      handOverAll();
      sync(false);
    }
  }

  /** Hands over what is collected, appends it, closes every file and ends the thread. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    handOverAll();
    closed = true;
    sync(true);
  }

  /**
   * Hands over what each file's chunk holds (where the queue has room; otherwise those units are
   * counted in {@link #lost()}) and asks the thread to close the files and end once it has appended
   * what it was handed, without waiting for it: for an encoder whose own thread was abandoned,
   * while this thread may be stuck in a write. Nothing may be handed over after it.
   */
  public void closeLater() {
    if (closed) {
      return;
    }
    closed = true;
    for (int t = 0; t < current.length; t++) {
      Chunk c = current[t];
      if (c.units > 0) {
        c.target = t;
        if (!work.offer(c)) {
          lost.addAndGet(c.items());
        }
      }
    }
    /* Set before the marker is offered: a thread that finds its queue empty with the flag set
       has appended every chunk handed over above, and ends as the marker would make it. */
    closeLater = true;
    work.offer(new Sync(true)); /* a full queue: the thread sees the flag once it has emptied it */
  }

  /** Units handed to this pipe that never reached their file (the encoder interrupted while waiting). */
  public long lost() {
    return lost.get();
  }

  /** The appending thread. */
  public Thread thread() {
    return thread;
  }

  private void handOverAll() {
    for (int t = 0; t < current.length; t++) {
      handOver(t);
    }
  }

  private void handOver(int target) {
    Chunk full = current[target];
    if (full.units == 0) {
      return;
    }
    Chunk next = free.poll();
    if (next == null && made < CHUNKS) {
      made++;
      next = new Chunk();
    }
    if (next == null) {
      try {
        next = free.take(); /* the appender returns each chunk it took, whether or not one is queued */
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        next = new Chunk(); /* abandoned (see the class comment): go on without waiting */
      }
    }
    full.target = target;
    next.takeTail(full); /* bytes of a unit not yet ended stay with the encoder, before full is shared */
    current[target] = next;
    if (!work.offer(full)) {
      try {
        work.put(full);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        lost.addAndGet(full.items()); /* never reaches its file: counted */
      }
    }
  }

  private void sync(boolean closing) {
    Sync s = new Sync(closing);
    try {
      work.put(s);
      s.done.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    try {
      while (true) {
        Object m = work.take();
        if (m instanceof Chunk c) {
          append(c);
          c.clear();
          free.offer(c); /* never full: it holds every chunk there is but those the encoder collects in */
        } else if (m instanceof Sync s) {
          finish(s.closing);
          s.done.countDown(); /* the encoder waits for this, whatever happened above */
          if (s.closing) {
            return;
          }
        }
        /* closeLater's marker may not have fit in the queue (chunks made past the bound by an
           interrupted encoder): the thread then ends once the queue is empty, whatever came last */
        if (closeLater && work.isEmpty()) {
          finish(true);
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Flushes or closes every file. */
  private void finish(boolean closing) {
    for (AccountedFile f : files) {
      try {
        if (closing) {
          f.close();
        } else {
          f.flush();
        }
      } catch (RuntimeException e) {
        log.error("NCCL Inspector: {} failed to {} a file", thread.getName(), closing ? "close" : "flush", e);
      }
    }
  }

  private void append(Chunk c) {
    try {
      files.get(c.target).appendUnits(c.data, c.ends, c.items, c.units);
    } catch (RuntimeException e) {
      /* AccountedFile handles output errors itself; anything else must not stop the appender */
      lost.addAndGet(c.items());
      log.error("NCCL Inspector: appending to a file on {} failed, {} units counted as not written", thread.getName(),
          c.units, e);
    }
  }

  /** Units of one file collected for handing over: their bytes, ends and item counts. */
  private static final class Chunk {
    byte[] data = new byte[FIRST_BYTES];
    int length;
    int[] ends = new int[128];
    int[] items = new int[128];
    int units;
    /** The file, set when handed over. */
    int target;

    void ensure(int more) {
      if (length + more > data.length) {
        /* doubling, up to a hand-over and a quarter (room for the unit that crosses it) */
        int doubled = Math.min(data.length * 2, HANDOFF_BYTES + (HANDOFF_BYTES >> 2));
        data = Arrays.copyOf(data, Math.max(doubled, length + more));
      }
    }

    void endUnit(int itemCount) {
      if (units == ends.length) {
        ends = Arrays.copyOf(ends, units * 2);
        items = Arrays.copyOf(items, units * 2);
      }
      ends[units] = length;
      items[units] = itemCount;
      units++;
    }

    long items() {
      long n = 0;
      for (int i = 0; i < units; i++) {
        n += items[i];
      }
      return n;
    }

    /** Takes over the bytes after {@code from}'s last unit (a unit still being written). */
    void takeTail(Chunk from) {
      int tailStart = from.units == 0 ? 0 : from.ends[from.units - 1];
      int tail = from.length - tailStart;
      if (tail > 0) {
        ensure(tail);
        System.arraycopy(from.data, tailStart, data, length, tail);
        length += tail;
        from.length = tailStart;
      }
    }

    void clear() {
      length = 0;
      units = 0;
    }
  }

  /** A request to flush (or close) the files once everything before it is appended. */
  private static final class Sync {
    final boolean closing;
    final CountDownLatch done = new CountDownLatch(1);

    Sync(boolean closing) {
      this.closing = closing;
    }
  }

  /** Appends to a file's current chunk. */
  private final class Stream extends OutputStream {
    private final int target;

    Stream(int target) {
      this.target = target;
    }

    @Override
    public void write(int b) {
      Chunk c = current[target];
      c.ensure(1);
      c.data[c.length++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      Chunk c = current[target];
      c.ensure(len);
      System.arraycopy(b, off, c.data, c.length, len);
      c.length += len;
    }
  }
}
