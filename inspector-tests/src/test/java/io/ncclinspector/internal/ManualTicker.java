package io.ncclinspector.internal;

import io.ncclinspector.testsupport.Await;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link Ticker} the test moves: time stands still until {@link #advance}, and a thread waiting
 * on it wakes when its time has come (or when it is unparked, as the production clock allows).
 * {@link #round} runs one full round of a periodic thread.
 */
public final class ManualTicker implements Ticker {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final Set<Thread> waiting = ConcurrentHashMap.newKeySet();
  private final AtomicLong waits = new AtomicLong();

  @Override
  public long nanoTime() {
    return now.get();
  }

  @Override
  public void park(long nanos) {
    long deadline = now.get() + nanos;
    Thread me = Thread.currentThread();
    waits.incrementAndGet();
    waiting.add(me);
    try {
      if (now.get() - deadline < 0) {
        LockSupport.park(this); /* an advance() after waiting.add unparks: the permit ends this at once */
      }
    } finally {
      waiting.remove(me);
    }
  }

  /** Moves the clock on and wakes the threads waiting on it. */
  public void advance(Duration d) {
    now.addAndGet(d.toNanos());
    for (Thread t : waiting) {
      LockSupport.unpark(t);
    }
  }

  /**
   * One round of the periodic thread that waits on this clock: waits until it waits, moves the
   * clock on by {@code period}, and returns once it waits again, its round's work done.
   */
  public void round(Duration period) throws InterruptedException {
    Await.until(() -> !waiting.isEmpty());
    long before = waits.get();
    advance(period);
    Await.until(() -> waits.get() > before);
  }
}
