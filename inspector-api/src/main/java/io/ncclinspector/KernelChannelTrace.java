package io.ncclinspector;

/**
 * One kernel channel of an operation, as seen in verbose mode. Sequence numbers count the
 * operation's callbacks (1 is its start); times are wall-clock nanoseconds of the callbacks;
 * GPU times are NCCL's global-timer nanoseconds (0 when absent). {@code desync} says whether the
 * channel carried, or may have carried, another work item's timestamps and was left out of the
 * timing.
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
    long gpuStopNanos,
    Desync desync) {

  /** Whether a channel's timestamps were its own work item's. */
  public enum Desync {
    /** In step: the channel's own timestamps. */
    IN_STEP,
    /** Lagging, predicted from a send/receive to the own rank before the operation started. */
    PREDICTED,
    /** Lagging, seen: it started before the operation's kernel was launched. */
    DETECTED,
    /**
     * Read late: NCCL read its timestamps after 64 later operations of the communicator had
     * started, when its slot in NCCL's timestamp ring may already hold a later work item's.
     */
    READ_LATE,
    /**
     * Handed on: its reading was an earlier operation's work item (channel recovery) and went to
     * that operation; its own item's timestamps came from a later operation, or were withheld.
     */
    HANDED_ON;

    private final String jsonName = name().toLowerCase(java.util.Locale.ROOT);

    /** The name in JSON output. */
    public String jsonName() {
      return jsonName;
    }
  }

  /** A channel in step (tests and tools that build traces). */
  public KernelChannelTrace(int channelId, int startSequence, int recordSequence, int stopSequence,
      long startWallNanos, long recordWallNanos, long stopWallNanos, long gpuStartNanos, long gpuStopNanos) {
    this(channelId, startSequence, recordSequence, stopSequence, startWallNanos, recordWallNanos,
        stopWallNanos, gpuStartNanos, gpuStopNanos, Desync.IN_STEP);
  }
}
