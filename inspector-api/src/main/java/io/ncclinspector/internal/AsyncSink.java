package io.ncclinspector.internal;

import io.ncclinspector.InspectorEvent;
import io.ncclinspector.spi.InspectorExporter;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a sink on its own thread behind a bounded queue, so that a slow consumer (a file write
 * blocked by the kernel's dirty-page throttling, a slow listener or exporter) never stops the dump
 * thread from draining the native ring. When the queue is full the event is dropped and counted;
 * nothing blocks. On the sink's thread each event is delivered to the sink's method for its kind
 * ({@link InspectorEvent#deliverTo}).
 *
 * <p>The dump thread hands over what it drained in one go ({@link #acceptAll}): one lock and at
 * most one wake-up of the sink's thread per batch, not per event; the sink's thread takes what is
 * queued in batches too. The queue is bounded in events, whichever way they came.
 *
 * <p>Nothing waits on the sink's thread without a bound either: closing asks the thread to finish
 * (without ever blocking on the full queue) and waits at most the close timeout; a thread still
 * busy then is <em>abandoned</em>: interrupted, never handed anything again, its queued items
 * counted as dropped, and the fact logged with where it was stuck. Its delegate is then not closed
 * (that could block too); an {@link Abandonable} one is told, once the thread is free again.
 */
public final class AsyncSink implements EventSink {
  private static final Logger log = LoggerFactory.getLogger(AsyncSink.class);
  private static final Object FLUSH = new Object();
  private static final Object FLUSH_NOW = new Object();
  private static final Object WAKE = new Object();

  /** Events (and markers) the sink's thread takes at once. */
  private static final int TAKE_MAX = 4096;

  private final InspectorExporter delegate;
  private final Queue queue;
  private final Thread thread;
  private final Duration closeTimeout;
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong delivered = new AtomicLong();
  private final AtomicLong flushesNow = new AtomicLong();
  private volatile boolean discarding;
  private volatile boolean closeRequested;
  private volatile boolean abandoned;
  private volatile Thread exempt; /* a thread this sink must not wait for (see closeRequestedFrom) */

  public AsyncSink(InspectorExporter delegate, String threadName, int capacity) {
    this(delegate, threadName, capacity, Duration.ofSeconds(20));
  }

  public AsyncSink(InspectorExporter delegate, String threadName, int capacity, Duration closeTimeout) {
    this.delegate = delegate;
    this.queue = new Queue(capacity);
    this.closeTimeout = closeTimeout;
    this.thread = new Thread(this::run, threadName);
    this.thread.setDaemon(true);
    this.thread.start();
  }

  /** Items dropped: the queue was full, or they were still queued when the sink was abandoned. */
  public long dropped() {
    return dropped.get();
  }

  /** Items handed to the delegate. */
  public long delivered() {
    return delivered.get();
  }

  /** {@link #flushNow} requests the delegate has carried out, on the sink's thread. */
  public long flushesMade() {
    return flushesNow.get();
  }

  /** Whether the sink's thread did not finish within the close timeout and was left behind. */
  public boolean abandoned() {
    return abandoned;
  }

  /** The sink's thread. */
  public Thread thread() {
    return thread;
  }

  /** Queues an event; never blocks. */
  @Override
  public void accept(InspectorEvent event) {
    if (discarding || closeRequested) {
      return;
    }
    if (!queue.offer(event)) {
      dropped.incrementAndGet();
    }
  }

  /** Queues events in their order, as many as fit; the others are dropped and counted. Never blocks. */
  @Override
  public void acceptAll(List<? extends InspectorEvent> events) {
    if (discarding || closeRequested || events.isEmpty()) {
      return;
    }
    int taken = queue.offerAll(events);
    if (taken < events.size()) {
      dropped.addAndGet(events.size() - taken);
    }
  }

  @Override
  public void flush() {
    if (!closeRequested) {
      queue.offer(FLUSH); /* a full queue is being worked on anyway */
    }
  }

  @Override
  public void flushNow() {
    if (!closeRequested) {
      queue.offer(FLUSH_NOW);
    }
  }

  /**
   * Hands over everything queued, lets the delegate finish it and closes the delegate, waiting at
   * most the close timeout (then the sink is abandoned).
   */
  @Override
  public void close() {
    requestClose(false);
    awaitClosed(System.nanoTime() + closeTimeout.toNanos());
  }

  /** Drops what is queued and stops: nothing more reaches the delegate once this returns (or it is abandoned). */
  public void discard() {
    requestClose(true);
    awaitClosed(System.nanoTime() + closeTimeout.toNanos());
  }

  /**
   * Asks the thread to finish, without waiting: with {@code drop}, what is queued is dropped;
   * otherwise it is delivered first. Never blocks, even on a full queue.
   */
  public void requestClose(boolean drop) {
    if (drop) {
      discarding = true;
      queue.clear();
    }
    closeRequested = true;
    queue.offer(WAKE); /* if the queue is full, the thread is busy and sees the request once it is empty */
  }

  /**
   * The thread that asked for the close, if it is this sink's own thread (a listener closing the
   * inspector, or removing itself, from its callback): nobody waits for it, it finishes once its
   * callback returns.
   */
  public void closeRequestedFrom(Thread caller) {
    exempt = caller;
  }

  /**
   * Waits until the thread has finished, at most until {@code deadlineNanos} ({@link System#nanoTime});
   * abandons it then. Returns whether it finished.
   */
  public boolean awaitClosed(long deadlineNanos) {
    Thread caller = Thread.currentThread();
    if (caller == thread || exempt == thread) {
      return true; /* it cannot finish while it is the one waiting */
    }
    try {
      long left;
      while (thread.isAlive() && (left = deadlineNanos - System.nanoTime()) > 0) {
        thread.join(Math.max(1, left / 1_000_000));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!thread.isAlive()) {
      return true;
    }
    abandon();
    return false;
  }

  private void abandon() {
    abandoned = true;
    discarding = true;
    int queued = queue.clear();
    dropped.addAndGet(queued);
    StackTraceElement[] stack = thread.getStackTrace();
    String where = stack.length == 0 ? "(unknown)" : stack[0].toString();
    for (StackTraceElement e : stack) {
      if (!e.getClassName().startsWith("java.") && !e.getClassName().startsWith("jdk.")
          && !e.getClassName().startsWith("io.ncclinspector.internal.")) {
        where = e.toString();
        break;
      }
    }
    log.warn("NCCL Inspector: {} did not finish within {} ms and is abandoned (stuck at {}); {} queued events"
        + " dropped, nothing more is delivered to it", thread.getName(), closeTimeout.toMillis(), where, queued);
    thread.interrupt();
  }

  private void run() {
    Object[] batch = new Object[TAKE_MAX];
    try {
      while (!(closeRequested && queue.isEmpty())) {
        int n;
        try {
          n = queue.take(batch);
        } catch (InterruptedException e) {
          if (abandoned) {
            return;
          }
          continue;
        }
        int events = 0;
        for (int i = 0; i < n; i++) {
          Object item = batch[i];
          batch[i] = null;
          if (discarding) {
            if (abandoned && isEvent(item)) {
              dropped.incrementAndGet(); /* taken, never handed over: counted like those still queued */
            }
            continue;
          }
          if (handle(item)) {
            events++;
          }
        }
        delivered.addAndGet(events);
      }
    } finally {
      if (!abandoned) {
        try {
          delegate.flush();
          delegate.close();
        } catch (RuntimeException ex) {
          log.error("NCCL Inspector: {} failed while closing", thread.getName(), ex);
        }
      } else if (delegate instanceof Abandonable a) {
        try {
          a.abandoned(); /* never waits: whatever held this thread may still hold the delegate's */
        } catch (RuntimeException ex) {
          log.error("NCCL Inspector: {} failed while letting go after it was abandoned", thread.getName(), ex);
        }
      }
    }
  }

  /**
   * The queue holds events and the three markers above, nothing else. Returns whether the item
   * was an event handed to the delegate.
   */
  private boolean handle(Object item) {
    try {
      if (item == WAKE) {
        return false;
      } else if (item == FLUSH) {
        delegate.flush();
        return false;
      } else if (item == FLUSH_NOW) {
        delegate.flushNow();
        flushesNow.incrementAndGet();
        return false;
      } else {
        ((InspectorEvent) item).deliverTo(delegate);
        return true;
      }
    } catch (RuntimeException | Error ex) {
      log.error("NCCL Inspector: {} failed on {}, continuing", thread.getName(), item.getClass().getSimpleName(), ex);
      return false;
    }
  }

  private static boolean isEvent(Object item) {
    return item != FLUSH && item != FLUSH_NOW && item != WAKE;
  }

  /**
   * A bounded ring of events and markers under one lock. Producers (the dump thread, the analysis
   * thread, the watchdog) add one item or a batch and signal the sink's thread once; it takes up
   * to a batch at a time.
   */
  private static final class Queue {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Object[] ring;
    private int head;
    private int count;

    Queue(int capacity) {
      if (capacity < 1) {
        throw new IllegalArgumentException("capacity must be positive: " + capacity);
      }
      ring = new Object[capacity];
    }

    boolean offer(Object item) {
      lock.lock();
      try {
        if (count == ring.length) {
          return false;
        }
        ring[index(count)] = item;
        count++;
        notEmpty.signal();
        return true;
      } finally {
        lock.unlock();
      }
    }

    /** Adds the first items of a batch that fit; returns how many. */
    int offerAll(List<?> items) {
      lock.lock();
      try {
        int n = Math.min(items.size(), ring.length - count);
        int at = index(count);
        for (int i = 0; i < n; i++) {
          ring[at] = items.get(i);
          if (++at == ring.length) {
            at = 0;
          }
        }
        count += n;
        if (n > 0) {
          notEmpty.signal();
        }
        return n;
      } finally {
        lock.unlock();
      }
    }

    /** Waits for an item, then moves as many as are there (up to the array's length) to {@code out}. */
    int take(Object[] out) throws InterruptedException {
      lock.lockInterruptibly();
      try {
        while (count == 0) {
          notEmpty.await();
        }
        int n = Math.min(count, out.length);
        int first = Math.min(n, ring.length - head);
        System.arraycopy(ring, head, out, 0, first);
        Arrays.fill(ring, head, head + first, null);
        if (first < n) {
          System.arraycopy(ring, 0, out, first, n - first);
          Arrays.fill(ring, 0, n - first, null);
        }
        head = index(n);
        count -= n;
        return n;
      } finally {
        lock.unlock();
      }
    }

    boolean isEmpty() {
      lock.lock();
      try {
        return count == 0;
      } finally {
        lock.unlock();
      }
    }

    /** Empties the queue; returns the events (not markers) it held. */
    int clear() {
      lock.lock();
      try {
        int events = 0;
        for (int i = 0; i < count; i++) {
          if (isEvent(ring[index(i)])) {
            events++;
          }
        }
        Arrays.fill(ring, null);
        head = 0;
        count = 0;
        return events;
      } finally {
        lock.unlock();
      }
    }

    private int index(int offset) {
      int i = head + offset;
      return i >= ring.length ? i - ring.length : i;
    }
  }
}
