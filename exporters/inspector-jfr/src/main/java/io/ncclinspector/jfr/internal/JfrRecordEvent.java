package io.ncclinspector.jfr.internal;

import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.OperationRecord;
import jdk.jfr.DataAmount;
import jdk.jfr.Label;
import jdk.jfr.Timespan;
import jdk.jfr.Timestamp;

/** The fields of an event about one completed operation (abstract: not an event type itself). */
abstract class JfrRecordEvent extends JfrCommunicatorEvent {
  @Label("Operation") String operation;
  @Label("Algorithm") String algorithm;
  @Label("Protocol") String protocol;
  @Label("Sequence") long sequence;
  @Label("Message Size") @DataAmount long messageBytes;
  @Label("Execution Time") @Timespan(Timespan.NANOSECONDS) long executionTime;
  @Label("Enqueued") @Timestamp(Timestamp.MILLISECONDS_SINCE_EPOCH) long enqueued;
  @Label("Step") long step;
  @Label("Phase") String phase;

  void record(OperationRecord r) {
    communicator(r.communicator());
    operation = r.operation();
    if (r instanceof CollectiveRecord c) {
      algorithm = c.algorithm().name();
      protocol = c.algorithm().protocol();
    }
    sequence = r.sequence();
    messageBytes = r.transfer().messageBytes();
    executionTime = r.timing().executionNanos();
    enqueued = r.timing().startWallNanos() / 1_000_000;
    step = r.tags().step();
    phase = r.tags().phase();
  }
}
