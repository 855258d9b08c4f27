package io.ncclinspector;

import java.util.List;
import java.util.Set;

/**
 * A completed collective.
 *
 * @param count elements as NCCL gave them (for AllGather and Broadcast NCCL passes bytes)
 * @param datatype NCCL's datatype name
 * @param algorithm NCCL's algorithm name (RING, TREE, ...)
 * @param protocol NCCL's protocol name (LL, LL128, SIMPLE)
 * @param announcedChannels channels NCCL announced
 * @param channelsSeen kernel channels that started
 * @param channelTraces the kernel channels (verbose mode only; empty otherwise)
 * @param startSequence callback sequence number of the start event (verbose trace)
 * @param stopSequence callback sequence number of the stop event (verbose trace)
 * @param step step tag of the thread that enqueued it ({@link NcclInspector#step}), -1 if none
 * @param phase phase tag of that thread ({@link NcclInspector#phase}), null if none
 */
public record CollectiveRecord(
    CommunicatorInfo communicator,
    String operation,
    long sequence,
    long count,
    String datatype,
    long messageBytes,
    int root,
    String algorithm,
    String protocol,
    int announcedChannels,
    int channelsSeen,
    int warps,
    long executionNanos,
    TimingSource timingSource,
    double algorithmBandwidthGbs,
    double busBandwidthGbs,
    long gpuStartNanos,
    long gpuSpanNanos,
    long gpuSkewNanos,
    Quarantine quarantine,
    long startWallNanos,
    long stopWallNanos,
    Set<RecordFlag> flags,
    List<KernelChannelTrace> channelTraces,
    int startSequence,
    int stopSequence,
    long step,
    String phase)
    implements OperationRecord {

  public CollectiveRecord {
    flags = Set.copyOf(flags);
    channelTraces = List.copyOf(channelTraces);
  }
}
