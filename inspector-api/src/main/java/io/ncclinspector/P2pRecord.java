package io.ncclinspector;

import java.util.Objects;
import java.util.Set;

/**
 * A completed point-to-point operation (Send or Recv).
 *
 * @param communicator the communicator it ran on
 * @param operation Send or Recv
 * @param sequence the communicator's P2P counter
 * @param peer the other rank
 * @param transfer size and bandwidths
 * @param timing execution time and the times around it
 * @param channels kernel channels
 * @param tags step and phase tags of the enqueuing thread
 * @param flags facts about how the record came about
 * @param trace callback sequence numbers and, in verbose mode, the kernel channels
 * @param network where the time went on a network transport ({@link NetworkBreakdown#NONE}: no
 *     proxy events); a receive's {@link NetworkBreakdown#lastArrivalWallNanos()} is its real
 *     completion
 */
public record P2pRecord(
    CommunicatorInfo communicator,
    String operation,
    long sequence,
    int peer,
    Transfer transfer,
    Timing timing,
    Channels channels,
    Tags tags,
    Set<RecordFlag> flags,
    EventTrace trace,
    NetworkBreakdown network)
    implements OperationRecord {

  public P2pRecord {
    Objects.requireNonNull(communicator, "communicator");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(transfer, "transfer");
    Objects.requireNonNull(timing, "timing");
    Objects.requireNonNull(channels, "channels");
    Objects.requireNonNull(tags, "tags");
    Objects.requireNonNull(trace, "trace");
    Objects.requireNonNull(network, "network");
    flags = Set.copyOf(flags);
  }

  /** A record without network breakdown. */
  public P2pRecord(CommunicatorInfo communicator, String operation, long sequence, int peer, Transfer transfer,
      Timing timing, Channels channels, Tags tags, Set<RecordFlag> flags, EventTrace trace) {
    this(communicator, operation, sequence, peer, transfer, timing, channels, tags, flags, trace,
        NetworkBreakdown.NONE);
  }

  @Override
  public void deliverTo(InspectorListener listener) {
    listener.operationCompleted(this);
  }

  @Override
  public OperationKind kind() {
    return OperationKind.P2P;
  }
}
