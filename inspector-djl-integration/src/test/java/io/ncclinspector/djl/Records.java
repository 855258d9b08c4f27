package io.ncclinspector.djl;

import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.testkit.RecordBuilder;

/** Hand-made operation records for tests that need no inspector. */
final class Records {
  static final CommunicatorInfo COMMUNICATOR = new CommunicatorInfo(1, 0xabcL, "world", 0, 4, 1, 5);

  private Records() {}

  /** A collective with a bus bandwidth; the algorithm bandwidth is what bytes and time give. */
  static OperationRecord collective(String operation, long bytes, long nanos, double busBandwidthGbs, long step) {
    return collective(operation, bytes, nanos, busBandwidthGbs, step, Quarantine.NONE);
  }

  static OperationRecord collective(String operation, long bytes, long nanos, double busBandwidthGbs, long step,
      Quarantine quarantine) {
    double algorithm = nanos == 0 ? 0 : (double) bytes / nanos;
    return RecordBuilder.collective(COMMUNICATOR, operation).sequence(step).messageBytes(bytes).channels(2, 2)
        .executionNanos(nanos).algorithmBandwidthGbs(algorithm).busBandwidthGbs(busBandwidthGbs)
        .quarantine(quarantine).step(step).phase("train").build();
  }

  static OperationRecord send(long bytes, long nanos, long step) {
    double bandwidth = nanos == 0 ? 0 : (double) bytes / nanos;
    return RecordBuilder.p2p(COMMUNICATOR, "Send").sequence(step).messageBytes(bytes).channels(1, 1)
        .executionNanos(nanos).algorithmBandwidthGbs(bandwidth).busBandwidthGbs(bandwidth).step(step).phase("train")
        .build();
  }
}
