package io.ncclinspector;

import java.util.List;
import java.util.Set;

/** A completed collective or point-to-point operation. */
public sealed interface OperationRecord permits CollectiveRecord, P2pRecord {

  CommunicatorInfo communicator();

  /** Operation name as NCCL spells it: AllReduce, AllGather, ..., Send, Recv. */
  String operation();

  /** NCCL's sequence number for collectives; a per-communicator counter for P2P operations. */
  long sequence();

  /** Message size: element count times element size. */
  long messageBytes();

  /** Execution time in nanoseconds: the longest single kernel channel (see {@link #timingSource()}). */
  long executionNanos();

  TimingSource timingSource();

  /** Algorithm bandwidth in GB/s (1e9 bytes per second). */
  double algorithmBandwidthGbs();

  /** Bus bandwidth in GB/s, by the nccl-tests factors. */
  double busBandwidthGbs();

  /** Earliest GPU start among the channels (global-timer ns), 0 without GPU timing. */
  long gpuStartNanos();

  /** Latest GPU stop minus earliest GPU start over the channels, 0 without GPU timing. */
  long gpuSpanNanos();

  /** Latest channel GPU start minus the earliest: how far apart the channels began. */
  long gpuSkewNanos();

  /** Why the GPU timing is not trusted ({@link Quarantine#NONE} normally). */
  Quarantine quarantine();

  /** Wall-clock nanoseconds of the operation's start event (NCCL begins enqueueing it). */
  long startWallNanos();

  /**
   * Wall-clock nanoseconds of its stop event (enqueue done; not completion). Taken in verbose mode
   * and for operations without kernel channels; 0 otherwise (the hot path reads the clock only
   * where a figure depends on it).
   */
  long stopWallNanos();

  /** Callback sequence number of the start event within the operation (1). */
  int startSequence();

  /** Callback sequence number of the stop event within the operation, 0 if none came. */
  int stopSequence();

  Set<RecordFlag> flags();

  /** The kernel channels (verbose mode only; empty otherwise). */
  List<KernelChannelTrace> channelTraces();

  /** Channels NCCL announced for the operation. */
  int announcedChannels();

  /** Kernel channels that started. */
  int channelsSeen();

  /** Step tag of the thread that enqueued it ({@link NcclInspector#step}), -1 if none. */
  long step();

  /** Phase tag of the thread that enqueued it ({@link NcclInspector#phase}), null if none. */
  String phase();

  /**
   * Kernel channels left out because they carried other work items' timestamps (NCCL's
   * kernel-channel counter desync); 0 normally.
   */
  int desyncedChannels();

  /**
   * Wall-clock nanoseconds of the kernel launch that ran it (interface v5 and later, when NCCL
   * started the operation on the launching thread), 0 when unknown.
   */
  long launchWallNanos();

  /** Whether the execution time is a measurement ({@code false}: {@link TimingSource#NONE}). */
  default boolean timed() {
    return timingSource().timed();
  }

  /** Execution time in whole microseconds, as the reference Inspector reports it. */
  default long executionMicros() {
    return executionNanos() / 1000;
  }
}
