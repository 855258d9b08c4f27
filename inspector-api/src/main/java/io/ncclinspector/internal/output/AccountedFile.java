package io.ncclinspector.internal.output;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An output file that counts exactly what reached it. Output is added in whole units (a JSON
 * line, a gzip member), each carrying a number of items (records, events); units are held in
 * memory and appended to the file in batches. An item is <em>written</em> only once its whole
 * unit is in the file.
 *
 * <p>When the file cannot be written (a full disk, an unwritable directory), the part of a unit
 * that did reach it is cut off again, so the file never ends in half a unit; the units not
 * written are kept, and new ones are added until {@code maxPendingBytes} are held; past that new
 * units are <em>lost</em> (counted, never silently). Writing is retried at most every
 * {@code retryNanos} (at each {@link #flush}); once it works again, everything held goes out and
 * output goes on. Whatever is still held at {@link #close} is lost. One outage is logged once,
 * its end once.
 *
 * <p>The file is created at the first write: nothing appears before there is output. It is
 * created new, never opened if something exists at its name (see {@link FileNames}).
 *
 * <p>Single-threaded: used by one writer thread.
 */
public final class AccountedFile {
  private static final Logger log = LoggerFactory.getLogger(AccountedFile.class);

  private final OutputFileSystem fs;
  private final FileNames names;
  private final String what;
  private final int writeBytes;
  private final int maxPendingBytes;
  private final long retryNanos;
  private final LongSupplier clock;
  private final UnitStream stream = new UnitStream();

  private OutputChannel channel;
  private volatile Path path;
  /* Held output: units end at ends[0..units), each with items[i] items; the unit being added
     starts at unitStart. */
  private byte[] buffer = new byte[1 << 12];
  private int length;
  private int unitStart;
  private int[] ends = new int[64];
  private int[] items = new int[64];
  private int units;
  private long pendingItems;

  private final AtomicLong written = new AtomicLong();
  private final AtomicLong lost = new AtomicLong();
  private volatile String error;
  private volatile String firstError;
  private long lostAtOutageStart;
  private long lastAttempt;

  /**
   * @param what how messages name this output ("NCCL Inspector output")
   * @param writeBytes held bytes that trigger a write
   * @param maxPendingBytes the most held while the file cannot be written
   * @param retryNanos the least time between two attempts while failing
   */
  public AccountedFile(OutputFileSystem fs, FileNames names, String what, int writeBytes, int maxPendingBytes,
      long retryNanos) {
    this(fs, names, what, writeBytes, maxPendingBytes, retryNanos, System::nanoTime);
  }

  /** As above, with the monotonic nanosecond clock the retry interval is measured on. */
  public AccountedFile(OutputFileSystem fs, FileNames names, String what, int writeBytes, int maxPendingBytes,
      long retryNanos, LongSupplier clock) {
    this.clock = clock;
    this.fs = fs;
    this.names = names;
    this.what = what;
    this.writeBytes = writeBytes;
    this.maxPendingBytes = maxPendingBytes;
    this.retryNanos = retryNanos;
  }

  /**
   * Checks, creating nothing, that the file could be created; if it could not, the outage starts
   * now (logged once) rather than at the first write. Writing is still tried when output comes.
   */
  public void preflight() {
    try {
      fs.checkDirectory(names.directory());
    } catch (IOException e) {
      failed(e);
    }
  }

  /** Where the next unit's bytes go; end the unit with {@link #endUnit}. Its flush() does nothing. */
  public OutputStream stream() {
    return stream;
  }

  /**
   * Ends the unit written to {@link #stream} since the previous one. Returns false when it could
   * not be kept (too much held while the file cannot be written): its items are counted lost.
   */
  public boolean endUnit(int itemCount) {
    if (length > maxPendingBytes && unitStart > 0) { /* over the bound, and other units are held */
      length = unitStart;
      lost.addAndGet(itemCount);
      return false;
    }
    if (units == ends.length) {
      ends = Arrays.copyOf(ends, units * 2);
      items = Arrays.copyOf(items, units * 2);
    }
    ends[units] = length;
    items[units] = itemCount;
    units++;
    unitStart = length;
    pendingItems += itemCount;
    if (length >= writeBytes) {
      writeOut(false);
    }
    return true;
  }

  /**
   * Adds {@code count} whole units at once: unit {@code i} is {@code data[ends[i - 1], ends[i])}
   * (from 0 for the first) with {@code items[i]} items. The result is that of writing each to
   * {@link #stream} and ending it with {@link #endUnit}; where none of them can be refused (nothing
   * of a unit pending, and all of them within the bound on what is held) it takes one copy.
   */
  public void appendUnits(byte[] data, int[] ends, int[] items, int count) {
    if (count == 0) {
      return;
    }
    int bytes = ends[count - 1];
    if (unitStart != length || (long) length + bytes > maxPendingBytes) {
      int start = 0;
      for (int i = 0; i < count; i++) {
        stream.write(data, start, ends[i] - start);
        endUnit(items[i]);
        start = ends[i];
      }
      return;
    }
    stream.ensure(bytes);
    System.arraycopy(data, 0, buffer, length, bytes);
    if (units + count > this.ends.length) {
      int size = Math.max(this.ends.length * 2, units + count);
      this.ends = Arrays.copyOf(this.ends, size);
      this.items = Arrays.copyOf(this.items, size);
    }
    for (int i = 0; i < count; i++) {
      this.ends[units + i] = length + ends[i];
      this.items[units + i] = items[i];
      pendingItems += items[i];
    }
    units += count;
    length += bytes;
    unitStart = length;
    if (length >= writeBytes) {
      writeOut(false);
    }
  }

  /**
   * Writes what is held (while failing, at most every retry interval); the file then ends at its
   * last line ({@link OutputChannel#settle}).
   */
  public void flush() {
    writeOut(false);
    if (channel != null) {
      try {
        channel.settle(); /* the file ends at its last line at every flush */
      } catch (IOException e) {
        /* Only padding stays (blank lines after the last line): tried again at the next flush. */
        log.debug("NCCL Inspector: cutting the padding of {} failed: {}", describe(), e.toString());
      }
    }
  }

  /** Writes what is held, counts what still cannot be written as lost, and closes the file. */
  public void close() {
    writeOut(true);
    if (pendingItems > 0) {
      /* counted; the owner says so once, with the whole picture (NcclInspector's close) */
      lost.addAndGet(pendingItems);
      log.debug("NCCL Inspector: {} items of {} never reached the file: {}", pendingItems, describe(), error);
      discardHeld();
    }
    removeIfEmpty();
    closeChannel();
  }

  /** A file created but never written to (the disk was already full) is not left behind empty. */
  private void removeIfEmpty() {
    try {
      if (channel != null && path != null && written.get() == 0 && channel.size() == 0) {
        closeChannel();
        fs.delete(path);
        path = null;
      }
    } catch (IOException e) {
      log.debug("NCCL Inspector: removing the empty {} failed: {}", describe(), e.toString());
    }
  }

  /** The file, once created. */
  public Optional<Path> path() {
    return Optional.ofNullable(path);
  }

  /** The file, or the name it will get. */
  public Path plannedPath() {
    return path != null ? path : names.first();
  }

  /** Items whose unit is in the file. */
  public long written() {
    return written.get();
  }

  /** Items that will never reach the file. */
  public long lost() {
    return lost.get();
  }

  /** Items held in memory, not yet in the file. */
  public long pending() {
    return pendingItems;
  }

  /** Why the file cannot be written right now, if it cannot. */
  public Optional<String> error() {
    return Optional.ofNullable(error);
  }

  /** The first reason writing ever failed, if it ever did (it may work again since). */
  public Optional<String> firstError() {
    return Optional.ofNullable(firstError);
  }

  private String describe() {
    return what + " " + (path != null ? path : names.first());
  }

  private void writeOut(boolean closing) {
    if (units == 0) {
      return;
    }
    long now = clock.getAsLong();
    if (error != null && !closing && now - lastAttempt < retryNanos) {
      return;
    }
    lastAttempt = now;
    try {
      if (channel == null) {
        open();
      }
    } catch (IOException e) {
      failed(e);
      return;
    }
    int end = ends[units - 1];
    long start;
    ByteBuffer b = ByteBuffer.wrap(buffer, 0, end);
    try {
      start = channel.size();
    } catch (IOException e) {
      failed(e);
      return;
    }
    try {
      while (b.hasRemaining()) {
        channel.write(b);
      }
    } catch (IOException e) {
      long reached;
      try {
        reached = channel.size() - start;
      } catch (IOException sizeUnknown) {
        reached = b.position();
      }
      int whole = wholeUnits(reached);
      long keep = start + (whole == 0 ? 0 : ends[whole - 1]);
      consume(whole);
      if (reached > keep - start) {
        try {
          channel.truncate(keep); /* no half unit stays in the file */
        } catch (IOException cannotCut) {
          /* Half a unit stays: that unit is lost, and the file is left for a new one, so that
             nothing written later joins the cut unit. */
          lost.addAndGet(items[0]);
          pendingItems -= items[0];
          consume0(1, false);
          closeChannel();
        }
      }
      failed(e);
      return;
    }
    consume(units);
    if (error != null) {
      log.warn("NCCL Inspector: {} is written again; {} items were lost while it could not be", describe(),
          lost.get() - lostAtOutageStart);
      error = null;
    }
  }

  private void open() throws IOException {
    fs.checkDirectory(names.directory()); /* names a file in the way as such */
    fs.createDirectories(names.directory());
    for (Path candidate : names.candidates()) {
      try {
        channel = fs.createNew(candidate);
        path = candidate;
        return;
      } catch (FileAlreadyExistsException taken) {
        // something is there (a file, a directory, a link): never touch it, try the next name
      }
    }
    throw new IOException("every name " + names.first() + " ... is taken");
  }

  private int wholeUnits(long bytes) {
    int n = 0;
    while (n < units && ends[n] <= bytes) {
      n++;
    }
    return n;
  }

  private void consume(int n) {
    consume0(n, true);
  }

  /** Drops the first n units from the buffer, counting their items written (or not). */
  private void consume0(int n, boolean countWritten) {
    if (n == 0) {
      return;
    }
    int bytes = ends[n - 1];
    long count = 0;
    for (int i = 0; i < n; i++) {
      count += items[i];
    }
    if (countWritten) {
      written.addAndGet(count);
      pendingItems -= count;
    }
    System.arraycopy(buffer, bytes, buffer, 0, length - bytes);
    length -= bytes;
    unitStart -= bytes;
    for (int i = n; i < units; i++) {
      ends[i - n] = ends[i] - bytes;
      items[i - n] = items[i];
    }
    units -= n;
  }

  private void discardHeld() {
    length = 0;
    unitStart = 0;
    units = 0;
    pendingItems = 0;
  }

  private void failed(IOException e) {
    String reason = e.getClass().getSimpleName() + (e.getMessage() != null ? ": " + e.getMessage() : "");
    if (error == null) {
      lostAtOutageStart = lost.get();
      log.error("NCCL Inspector: cannot write {}: {}. Output is held in memory (up to {} KiB) and writing is retried"
              + " every {} ms; what does not fit is counted as not written", describe(), reason, maxPendingBytes >> 10,
          retryNanos / 1_000_000);
    }
    error = reason;
    if (firstError == null) {
      firstError = reason;
    }
  }

  private void closeChannel() {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        log.warn("NCCL Inspector: closing {} failed: {}", describe(), e.toString());
      }
      channel = null;
    }
  }

  /** Appends to the held buffer. */
  private final class UnitStream extends OutputStream {
    void ensure(int more) {
      if (length + more > buffer.length) {
        buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, length + more));
      }
    }

    @Override
    public void write(int b) {
      ensure(1);
      buffer[length++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      ensure(len);
      System.arraycopy(b, off, buffer, length, len);
      length += len;
    }
  }
}
