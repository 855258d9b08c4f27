package io.ncclinspector;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * An operation that was enqueued and has not completed after the hang timeout: the in-process
 * counterpart of a collective timeout, reported without aborting anything.
 *
 * @param communicator its communicator
 * @param operation AllReduce, Send, ...
 * @param sequence NCCL's sequence number (collectives) or the communicator's P2P counter
 * @param enqueuedAt wall-clock time of its start event
 * @param age how long it had been in flight when seen
 * @param progress how far it got
 * @param tags step and phase tags of the enqueuing thread
 */
public record HangEvent(
    CommunicatorInfo communicator,
    String operation,
    long sequence,
    Instant enqueuedAt,
    Duration age,
    Progress progress,
    Tags tags) implements InspectorEvent {

  public HangEvent {
    Objects.requireNonNull(communicator, "communicator");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(enqueuedAt, "enqueuedAt");
    Objects.requireNonNull(age, "age");
    Objects.requireNonNull(progress, "progress");
    Objects.requireNonNull(tags, "tags");
  }

  /**
   * How far a suspected hang got.
   *
   * @param announcedChannels channels NCCL announced
   * @param channelsStarted kernel channels that started (0: the kernel never began)
   * @param channelsDone kernel channels that finished
   * @param enqueueDone whether NCCL's stop event (enqueue done) arrived
   */
  public record Progress(int announcedChannels, int channelsStarted, int channelsDone, boolean enqueueDone) {}

  @Override
  public void deliverTo(InspectorListener listener) {
    listener.hangSuspected(this);
  }
}
