package io.ncclinspector.replay;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The profiler-table driver is one per process (it stands in for NCCL's single profiler slot, and
 * its handle maps are process-wide): a second player would silently reset the first one's maps.
 * A player or replay holds this lease while it uses the driver; a second one is refused.
 */
final class DriverLease implements AutoCloseable {
  private static final AtomicReference<String> HOLDER = new AtomicReference<>();

  private final String holder;
  private boolean released;

  private DriverLease(String holder) {
    this.holder = holder;
  }

  /** Takes the driver, or fails naming who has it. */
  static DriverLease take(String who) {
    if (!HOLDER.compareAndSet(null, who)) {
      throw new IllegalStateException("the trace driver is in use by " + HOLDER.get()
          + "; one TracePlayer or replay at a time per process (close the other first)");
    }
    return new DriverLease(who);
  }

  @Override
  public void close() {
    if (!released) {
      released = true;
      HOLDER.compareAndSet(holder, null);
    }
  }
}
