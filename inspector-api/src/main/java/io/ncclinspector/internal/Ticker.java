package io.ncclinspector.internal;

import java.util.concurrent.locks.LockSupport;

/**
 * The time the inspector's timers go by: a monotonic nanosecond clock and a wait on it. The hang
 * watchdog waits for its rounds on it, the output's retry interval and the slow-collective rate
 * limit read it. {@link #SYSTEM} in production; tests drive one by hand, so that what happens
 * "after a while" happens when the test says, never by sleeping. (The dump thread polls the
 * native ring on the system's clock: it has no timer a test waits for.)
 */
public interface Ticker {
  /** Monotonic nanoseconds ({@link System#nanoTime} for {@link #SYSTEM}). */
  long nanoTime();

  /**
   * Waits up to {@code nanos} of this clock. May return earlier: when the thread is unparked
   * ({@link LockSupport#unpark}), or spuriously; callers check what they wait for.
   */
  void park(long nanos);

  /** The system's clock. */
  Ticker SYSTEM = new Ticker() {
    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public void park(long nanos) {
      LockSupport.parkNanos(this, nanos);
    }

    @Override
    public String toString() {
      return "Ticker.SYSTEM";
    }
  };
}
