package io.ncclinspector.internal;

import io.ncclinspector.OperationRecord;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.jfr.JfrEvents;

/**
 * The analysis thread's work (behind an {@link AsyncSink}): snapshot statistics and slow-collective
 * detection, which both need to see every record but must not slow the dump thread; and the JFR
 * events of records and slow collectives.
 */
public final class AnalysisSink implements RecordSink {
  private final StatisticsStore statistics;
  private final SlowCollectiveDetector detector;
  private final ListenerDispatcher listeners;
  private final JfrEvents jfr;

  /** @param jfr JFR events, null when they are off */
  public AnalysisSink(StatisticsStore statistics, SlowCollectiveDetector detector, ListenerDispatcher listeners,
      JfrEvents jfr) {
    this.jfr = jfr;
    this.statistics = statistics;
    this.detector = detector;
    this.listeners = listeners;
  }

  @Override
  public void record(OperationRecord record) {
    statistics.record(record);
    SlowCollectiveEvent slow = detector.observe(record);
    if (slow != null) {
      listeners.slowCollective(slow);
    }
    if (jfr != null) {
      jfr.operation(record);
      if (slow != null) {
        jfr.slowCollective(slow);
      }
    }
  }

  @Override
  public void communicator(CommunicatorEvent event) {
    statistics.communicator(event);
    if (!event.created()) {
      detector.forget(event.communicator().serial());
    }
  }
}
