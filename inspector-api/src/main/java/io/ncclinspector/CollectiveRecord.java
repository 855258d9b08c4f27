package io.ncclinspector;

import java.util.Objects;
import java.util.Set;

/**
 * A completed collective.
 *
 * @param communicator the communicator it ran on
 * @param operation AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AlltoAll, ...
 * @param sequence NCCL's sequence number (per operation and communicator); for a call NCCL gave no
 *     operation event ({@link RecordFlag#NOT_PROFILED_BY_NCCL}), the call's number among the
 *     communicator's calls of the same operation, counted the same way
 * @param root the root rank (Broadcast, Reduce)
 * @param algorithm algorithm, protocol and warps NCCL chose
 * @param transfer size and bandwidths
 * @param timing execution time and the times around it
 * @param channels kernel channels
 * @param tags step and phase tags of the enqueuing thread
 * @param flags facts about how the record came about
 * @param trace callback sequence numbers and, in verbose mode, the kernel channels
 * @param callNumber the application's call: its number among the communicator's collective calls
 *     (0, 1, ...; interface v5 and later), {@link #CALL_NUMBER_UNKNOWN} when not known (interface
 *     v4 and older, CUDA-graph replays). Gaps are calls that made no record (see the counters)
 * @param network where the time went on a network transport ({@link NetworkBreakdown#NONE}: no
 *     proxy events)
 */
public record CollectiveRecord(
    CommunicatorInfo communicator,
    String operation,
    long sequence,
    int root,
    Algorithm algorithm,
    Transfer transfer,
    Timing timing,
    Channels channels,
    Tags tags,
    Set<RecordFlag> flags,
    EventTrace trace,
    long callNumber,
    NetworkBreakdown network)
    implements OperationRecord {

  /** {@link #callNumber()} of a record whose call is not known. */
  public static final long CALL_NUMBER_UNKNOWN = -1;

  public CollectiveRecord {
    Objects.requireNonNull(communicator, "communicator");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(algorithm, "algorithm");
    Objects.requireNonNull(transfer, "transfer");
    Objects.requireNonNull(timing, "timing");
    Objects.requireNonNull(channels, "channels");
    Objects.requireNonNull(tags, "tags");
    Objects.requireNonNull(trace, "trace");
    Objects.requireNonNull(network, "network");
    flags = Set.copyOf(flags);
  }

  /** A record without network breakdown. */
  public CollectiveRecord(CommunicatorInfo communicator, String operation, long sequence, int root,
      Algorithm algorithm, Transfer transfer, Timing timing, Channels channels, Tags tags,
      Set<RecordFlag> flags, EventTrace trace, long callNumber) {
    this(communicator, operation, sequence, root, algorithm, transfer, timing, channels, tags, flags, trace,
        callNumber, NetworkBreakdown.NONE);
  }

  /** A record whose call number is not known. */
  public CollectiveRecord(CommunicatorInfo communicator, String operation, long sequence, int root,
      Algorithm algorithm, Transfer transfer, Timing timing, Channels channels, Tags tags,
      Set<RecordFlag> flags, EventTrace trace) {
    this(communicator, operation, sequence, root, algorithm, transfer, timing, channels, tags, flags, trace,
        CALL_NUMBER_UNKNOWN);
  }

  @Override
  public void deliverTo(InspectorListener listener) {
    listener.operationCompleted(this);
  }

  @Override
  public OperationKind kind() {
    return OperationKind.COLLECTIVE;
  }
}
