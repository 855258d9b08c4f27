package io.ncclinspector;

import java.time.Duration;
import java.time.Instant;

/**
 * An operation that was enqueued and has not completed after the hang timeout: the in-process
 * counterpart of a collective timeout, reported without aborting anything.
 *
 * @param communicator its communicator
 * @param operation AllReduce, Send, ...
 * @param sequence NCCL's sequence number (collectives) or the communicator's P2P counter
 * @param enqueuedAt wall-clock time of its start event
 * @param age how long it had been in flight when seen
 * @param channelsStarted kernel channels that started (0: the kernel never began)
 * @param channelsDone kernel channels that finished
 * @param announcedChannels channels NCCL announced
 * @param enqueueDone whether NCCL's stop event (enqueue done) arrived
 * @param step step tag of the enqueuing thread, -1 if none
 * @param phase phase tag, null if none
 */
public record HangEvent(
    CommunicatorInfo communicator,
    String operation,
    long sequence,
    Instant enqueuedAt,
    Duration age,
    int channelsStarted,
    int channelsDone,
    int announcedChannels,
    boolean enqueueDone,
    long step,
    String phase) {}
