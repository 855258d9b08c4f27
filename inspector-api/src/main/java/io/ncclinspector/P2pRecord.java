package io.ncclinspector;

import java.util.List;
import java.util.Set;

/**
 * A completed point-to-point operation (Send or Recv).
 *
 * @param peer the other rank
 * @param announcedChannels channels NCCL announced
 * @param channelsSeen kernel channels that started
 * @param channelTraces the kernel channels (verbose mode only; empty otherwise)
 * @param startSequence callback sequence number of the start event (verbose trace)
 * @param stopSequence callback sequence number of the stop event (verbose trace)
 * @param step step tag of the thread that enqueued it ({@link NcclInspector#step}), -1 if none
 * @param phase phase tag of that thread ({@link NcclInspector#phase}), null if none
 * @param desyncedChannels kernel channels left out for carrying other work's timestamps
 * @param launchWallNanos wall-clock time of its kernel's launch, 0 if unknown
 */
public record P2pRecord(
    CommunicatorInfo communicator,
    String operation,
    long sequence,
    int peer,
    long count,
    String datatype,
    long messageBytes,
    int announcedChannels,
    int channelsSeen,
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
    String phase,
    int desyncedChannels,
    long launchWallNanos)
    implements OperationRecord {

  public P2pRecord {
    flags = Set.copyOf(flags);
    channelTraces = List.copyOf(channelTraces);
  }

  /** A record without desynced channels or launch time (tests and tools that build records). */
  public P2pRecord(CommunicatorInfo communicator, String operation, long sequence, int peer, long count,
      String datatype, long messageBytes, int announcedChannels, int channelsSeen, long executionNanos,
      TimingSource timingSource, double algorithmBandwidthGbs, double busBandwidthGbs, long gpuStartNanos,
      long gpuSpanNanos, long gpuSkewNanos, Quarantine quarantine, long startWallNanos, long stopWallNanos,
      Set<RecordFlag> flags, List<KernelChannelTrace> channelTraces, int startSequence, int stopSequence,
      long step, String phase) {
    this(communicator, operation, sequence, peer, count, datatype, messageBytes, announcedChannels,
        channelsSeen, executionNanos, timingSource, algorithmBandwidthGbs, busBandwidthGbs, gpuStartNanos,
        gpuSpanNanos, gpuSkewNanos, quarantine, startWallNanos, stopWallNanos, flags, channelTraces,
        startSequence, stopSequence, step, phase, 0, 0);
  }
}
