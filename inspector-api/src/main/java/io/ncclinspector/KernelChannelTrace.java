package io.ncclinspector;

/**
 * One kernel channel of an operation, as seen in verbose mode. Sequence numbers count the
 * operation's callbacks (1 is its start); times are wall-clock nanoseconds of the callbacks;
 * GPU times are NCCL's global-timer nanoseconds (0 when absent).
 */
public record KernelChannelTrace(
    int channelId,
    int startSequence,
    int recordSequence,
    int stopSequence,
    long startWallNanos,
    long recordWallNanos,
    long stopWallNanos,
    long gpuStartNanos,
    long gpuStopNanos) {}
