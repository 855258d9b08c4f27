package io.ncclinspector;

import java.util.Objects;
import java.util.Set;

/**
 * A completed collective.
 *
 * @param communicator the communicator it ran on
 * @param operation AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AlltoAll, ...
 * @param sequence NCCL's sequence number
 * @param root the root rank (Broadcast, Reduce)
 * @param algorithm algorithm, protocol and warps NCCL chose
 * @param transfer size and bandwidths
 * @param timing execution time and the times around it
 * @param channels kernel channels
 * @param tags step and phase tags of the enqueuing thread
 * @param flags facts about how the record came about
 * @param trace callback sequence numbers and, in verbose mode, the kernel channels
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
    EventTrace trace)
    implements OperationRecord {

  public CollectiveRecord {
    Objects.requireNonNull(communicator, "communicator");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(algorithm, "algorithm");
    Objects.requireNonNull(transfer, "transfer");
    Objects.requireNonNull(timing, "timing");
    Objects.requireNonNull(channels, "channels");
    Objects.requireNonNull(tags, "tags");
    Objects.requireNonNull(trace, "trace");
    flags = Set.copyOf(flags);
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
