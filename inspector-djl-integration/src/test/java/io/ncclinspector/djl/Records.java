package io.ncclinspector.djl;

import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.P2pRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.TimingSource;
import java.util.List;
import java.util.Set;

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
    return new CollectiveRecord(COMMUNICATOR, operation, step, bytes / 4, "ncclFloat32", bytes, 0, "RING", "SIMPLE",
        2, 2, 16, nanos, TimingSource.KERNEL_GPU, algorithm, busBandwidthGbs, 0, 0, 0, quarantine, 0, 0, Set.of(),
        List.of(), 1, 2, step, "train");
  }

  static OperationRecord send(long bytes, long nanos, long step) {
    double bandwidth = nanos == 0 ? 0 : (double) bytes / nanos;
    return new P2pRecord(COMMUNICATOR, "Send", step, 1, bytes, "ncclInt8", bytes, 1, 1, nanos,
        TimingSource.KERNEL_GPU, bandwidth, bandwidth, 0, 0, 0, Quarantine.NONE, 0, 0, Set.of(), List.of(), 1, 2,
        step, "train");
  }
}
