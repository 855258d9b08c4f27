package io.ncclinspector;

import java.util.Set;

/**
 * A completed collective or point-to-point operation: who ran it ({@link #communicator()},
 * {@link #operation()}, {@link #sequence()}), what it moved ({@link #transfer()}), how long it
 * took ({@link #timing()}), on which channels ({@link #channels()}), under which tags
 * ({@link #tags()}), with which facts ({@link #flags()}) and, in verbose mode, where its callbacks
 * fell ({@link #trace()}). Each group is a small value of its own, so a new figure joins its group
 * without changing the others.
 */
public sealed interface OperationRecord extends InspectorEvent permits CollectiveRecord, P2pRecord {

  @Override
  CommunicatorInfo communicator();

  /** Operation name as NCCL spells it: AllReduce, AllGather, ..., Send, Recv. */
  String operation();

  /** NCCL's sequence number for collectives; a per-communicator counter for P2P operations. */
  long sequence();

  /** Collective or point-to-point. */
  OperationKind kind();

  /** Size and bandwidths. */
  Transfer transfer();

  /** Execution time, its source, GPU and wall-clock times. */
  Timing timing();

  /** Kernel channels announced, started and left out. */
  Channels channels();

  /** Step and phase tags of the enqueuing thread. */
  Tags tags();

  Set<RecordFlag> flags();

  /** Where the time went on a network transport ({@link NetworkBreakdown#NONE}: no proxy events). */
  NetworkBreakdown network();

  /** Callback sequence numbers and, in verbose mode, the kernel channels. */
  EventTrace trace();

  /** How its GPU time was obtained: directly, recovered from a later operation, or withheld (and why). */
  default TimeRecovery timeRecovery() {
    return channels().recovery();
  }

  /**
   * Whether the execution time is a lower bound, and so its bandwidths upper bounds: a P2P time
   * that ends at the send side ({@link RecordFlag#SEND_SIDE_STOP}), or a collective timed from its
   * in-step channels only ({@link RecordFlag#DESYNC_CHANNELS_EXCLUDED}: the channels left out may
   * have run longer). Written as {@code *_bw_is_upper_bound: true}.
   */
  default boolean executionTimeIsLowerBound() {
    return timing().timed() && RecordFlag.timeIsLowerBound(flags());
  }

  /** The operation's class: operation, algorithm, protocol (collectives), size bucket. */
  default OperationClass operationClass() {
    return OperationClass.of(this);
  }
}
