package io.ncclinspector.examples.nccl;

import java.util.HashMap;
import java.util.Map;

/**
 * Numbers every NCCL call a program makes on one communicator (warm-up and untimed ones too), and
 * predicts the numbers the profilers will give it:
 * <ul>
 *   <li>the call number, which the program passes to {@code NcclInspector.step} so that this
 *       inspector's records carry it;
 *   <li>NCCL's sequence number of a collective, which NCCL counts per collective function from 0
 *       ({@code comm->seqNumber[func]}, NCCL 2.28 {@code src/plugin/profiler.cc});
 *   <li>for calls that NCCL runs as point-to-point tasks (Send/Recv, and AlltoAll as one Send and
 *       one Recv per rank, the own rank included: {@code src/enqueue.cc}, {@code taskAppend}), the
 *       range of the reference Inspector's P2P numbers, which it counts from 1 per communicator,
 *       one per P2p event.
 * </ul>
 */
final class CallCounter {
  /**
   * One call. {@code collSequence} is -1 for point-to-point calls; {@code p2pCount} 0 for
   * collectives. {@code afterSelfP2p}: an earlier call on the communicator held a send/receive to
   * the own rank (from then on NCCL's kernel-channel counters may be out of step).
   */
  record CallId(long call, Operation operation, long collSequence, long p2pFirstSn, int p2pCount,
      boolean afterSelfP2p) {
    /** Whether the call holds a send/receive to the own rank (which puts NCCL's channel counters out of step). */
    boolean hasSelfP2p() {
      return operation == Operation.ALL_TO_ALL;
    }
  }

  private final int ranks;
  /** NCCL's sequence numbers by operation name (a grouped broadcast counts as its broadcasts). */
  private final Map<String, Long> collectiveCounts = new HashMap<>();
  private long calls;
  private long nextP2pSn = 1;
  private long expectedRecords;
  private boolean selfP2pSeen;

  CallCounter(int ranks) {
    this.ranks = ranks;
  }

  CallId next(Operation op) {
    long seq = -1;
    int p2p = 0;
    switch (op) {
      case ALL_TO_ALL -> p2p = 2 * ranks;
      case SEND_RECV -> p2p = 2;
      default -> {
        seq = collectiveCounts.getOrDefault(op.recordName(), 0L);
        collectiveCounts.put(op.recordName(), seq + op.calls());
      }
    }
    CallId id = new CallId(calls++, op, seq, p2p > 0 ? nextP2pSn : -1, p2p, selfP2pSeen);
    nextP2pSn += p2p;
    expectedRecords += p2p > 0 ? p2p : op.calls();
    selfP2pSeen |= id.hasSelfP2p();
    return id;
  }

  /**
   * Records this inspector accounts for (writes, or drops with a reason) for the calls so far: one
   * per collective, one per Send/Recv task (the own rank's included).
   */
  long expectedRecords() {
    return expectedRecords;
  }

  long calls() {
    return calls;
  }

  int ranks() {
    return ranks;
  }
}
