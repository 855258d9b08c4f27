package io.ncclinspector.internal;

import io.ncclinspector.OperationRecord;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.SlowCollectiveSummary;
import io.ncclinspector.jfr.JfrEvents;
import java.util.function.LongSupplier;

/**
 * The analysis thread's work (behind an {@link AsyncSink}): snapshot statistics and slow-collective
 * detection, which both need to see every record but must not slow the dump thread; and the JFR
 * events of records and slow collectives. JFR hears of every slow collective; listeners of those
 * the rate limiter lets through, and of the summaries of the others, at the flush after their
 * interval ends, when their communicator is destroyed, or at close.
 */
public final class AnalysisSink implements RecordSink {
  private final StatisticsStore statistics;
  private final SlowCollectiveDetector detector;
  private final SlowCollectiveRateLimiter limiter;
  private final ListenerDispatcher listeners;
  private final JfrEvents jfr;
  private final LongSupplier clock;

  /**
   * @param jfr JFR events, null when they are off
   * @param clock monotonic nanoseconds for the rate limit ({@code System::nanoTime})
   */
  public AnalysisSink(StatisticsStore statistics, SlowCollectiveDetector detector, SlowCollectiveRateLimiter limiter,
      ListenerDispatcher listeners, JfrEvents jfr, LongSupplier clock) {
    this.jfr = jfr;
    this.statistics = statistics;
    this.detector = detector;
    this.limiter = limiter;
    this.listeners = listeners;
    this.clock = clock;
  }

  @Override
  public void record(OperationRecord record) {
    statistics.record(record);
    SlowCollectiveEvent slow = detector.observe(record);
    boolean delivered = slow != null && limiter.admit(slow, clock.getAsLong(), this::summary);
    if (delivered) {
      listeners.slowCollective(slow);
    }
    if (jfr != null) {
      jfr.operation(record);
      if (slow != null) {
        jfr.slowCollective(slow, delivered);
      }
    }
  }

  @Override
  public void communicator(CommunicatorEvent event) {
    statistics.communicator(event);
    if (!event.created()) {
      limiter.finish(event.communicator().serial(), clock.getAsLong(), this::summary);
      detector.forget(event.communicator().serial());
    }
  }

  @Override
  public void flush() {
    limiter.due(clock.getAsLong(), this::summary);
  }

  @Override
  public void close() {
    limiter.finishAll(clock.getAsLong(), this::summary);
  }

  private void summary(SlowCollectiveSummary s) {
    listeners.slowCollectivesSuppressed(s);
  }
}
