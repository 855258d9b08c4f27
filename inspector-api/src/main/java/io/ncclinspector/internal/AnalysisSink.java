package io.ncclinspector.internal;

import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.OperationClass;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.SlowCollectiveSummary;
import io.ncclinspector.spi.InspectorExporter;
import java.util.function.LongSupplier;

/**
 * The analysis thread's work (behind an {@link AsyncSink}): snapshot statistics and slow-collective
 * detection, which both need to see every record but must not slow the dump thread. Exporters
 * hear of every slow collective (those the rate limit held back marked so); listeners of those the
 * rate limiter lets through, and of the summaries of the others, at the flush after their interval
 * ends, when their communicator is destroyed, or at close.
 */
public final class AnalysisSink implements InspectorExporter {
  private final StatisticsStore statistics;
  private final SlowCollectiveDetector detector;
  private final SlowCollectiveRateLimiter limiter;
  private final EventSink listeners;
  private final EventSink exporters;
  private final LongSupplier clock;

  /**
   * @param listeners where slow collectives the rate limit lets through and summaries go
   * @param exporters where every slow collective and every summary goes
   * @param clock monotonic nanoseconds for the rate limit ({@code System::nanoTime})
   */
  public AnalysisSink(StatisticsStore statistics, SlowCollectiveDetector detector, SlowCollectiveRateLimiter limiter,
      EventSink listeners, EventSink exporters, LongSupplier clock) {
    this.statistics = statistics;
    this.detector = detector;
    this.limiter = limiter;
    this.listeners = listeners;
    this.exporters = exporters;
    this.clock = clock;
  }

  @Override
  public void operationCompleted(OperationRecord record) {
    OperationClass operationClass = OperationClass.of(record);
    statistics.record(record, operationClass);
    SlowCollectiveEvent slow = detector.observe(record, operationClass);
    if (slow == null) {
      return;
    }
    if (limiter.admit(slow, clock.getAsLong(), this::summary)) {
      listeners.accept(slow);
      exporters.accept(slow);
    } else {
      exporters.accept(slow.asRateLimited());
    }
  }

  @Override
  public void communicatorCreated(CommunicatorInfo communicator) {
    statistics.communicator(communicator, true);
  }

  @Override
  public void communicatorDestroyed(CommunicatorInfo communicator) {
    statistics.communicator(communicator, false);
    limiter.finish(communicator.serial(), clock.getAsLong(), this::summary);
    detector.forget(communicator.serial());
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
    listeners.accept(s);
    exporters.accept(s);
  }
}
