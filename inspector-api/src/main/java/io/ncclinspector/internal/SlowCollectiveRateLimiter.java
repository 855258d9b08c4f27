package io.ncclinspector.internal;

import io.ncclinspector.OperationClass;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.SlowCollectiveSummary;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Lets at most {@code maxEvents} slow collectives per class through per interval and counts the
 * others into one {@link SlowCollectiveSummary}, handed out once the interval is over. An interval
 * opens with the first slow collective of its class and lasts {@code interval}. Time is passed in
 * by the caller ({@code now}, monotonic nanoseconds), so that tests need no clock and no waiting.
 * Analysis thread only.
 */
public final class SlowCollectiveRateLimiter {
  private record Key(long communicatorSerial, OperationClass operationClass) {}

  /** The open interval of one class. */
  private static final class Window {
    final long start;
    int delivered;
    long suppressed;
    SlowCollectiveEvent worst;
    final EnumMap<SlowCollectiveEvent.Kind, Long> kinds = new EnumMap<>(SlowCollectiveEvent.Kind.class);

    Window(long start) {
      this.start = start;
    }
  }

  private final int maxEvents;
  private final long intervalNanos;
  private final Map<Key, Window> windows = new HashMap<>();
  private long suppressedTotal;

  public SlowCollectiveRateLimiter(int maxEvents, Duration interval) {
    if (maxEvents < 1 || interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("maxEvents must be positive and interval positive");
    }
    this.maxEvents = maxEvents;
    this.intervalNanos = interval.toNanos();
  }

  /**
   * Whether a slow collective goes to listeners now; otherwise it is counted into its class's
   * summary. A summary of an interval that is over is handed to {@code summaries} first.
   */
  public boolean admit(SlowCollectiveEvent event, long now, Consumer<SlowCollectiveSummary> summaries) {
    if (maxEvents == Integer.MAX_VALUE) {
      return true;
    }
    Key key = new Key(event.record().communicator().serial(), event.baseline().operationClass());
    Window w = windows.get(key);
    if (w != null && now - w.start >= intervalNanos) {
      summarize(w, now, summaries);
      w = null;
    }
    if (w == null) {
      w = new Window(now);
      windows.put(key, w);
    }
    if (w.delivered < maxEvents) {
      w.delivered++;
      return true;
    }
    w.suppressed++;
    suppressedTotal++;
    w.kinds.merge(event.kind(), 1L, Long::sum);
    if (w.worst == null
        || event.record().timing().executionNanos() > w.worst.record().timing().executionNanos()) {
      w.worst = event.asRateLimited();
    }
    return false;
  }

  /** Hands out the summaries of intervals that are over, and forgets those intervals. */
  public void due(long now, Consumer<SlowCollectiveSummary> summaries) {
    for (Iterator<Window> it = windows.values().iterator(); it.hasNext(); ) {
      Window w = it.next();
      if (now - w.start >= intervalNanos) {
        summarize(w, now, summaries);
        it.remove();
      }
    }
  }

  /** Hands out what a communicator's classes held back (it was destroyed) and forgets them. */
  public void finish(long communicatorSerial, long now, Consumer<SlowCollectiveSummary> summaries) {
    for (Iterator<Map.Entry<Key, Window>> it = windows.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Key, Window> e = it.next();
      if (e.getKey().communicatorSerial() == communicatorSerial) {
        summarize(e.getValue(), now, summaries);
        it.remove();
      }
    }
  }

  /** Hands out everything held back (the inspector closes). */
  public void finishAll(long now, Consumer<SlowCollectiveSummary> summaries) {
    for (Window w : windows.values()) {
      summarize(w, now, summaries);
    }
    windows.clear();
  }

  /** Slow collectives held back so far, summarized or still pending. */
  public long suppressed() {
    return suppressedTotal;
  }

  private static void summarize(Window w, long now, Consumer<SlowCollectiveSummary> summaries) {
    if (w.suppressed > 0) {
      summaries.accept(new SlowCollectiveSummary(w.worst.record().communicator(), w.worst.baseline().operationClass(),
          w.suppressed, Duration.ofNanos(now - w.start), w.worst, w.kinds));
    }
  }
}
