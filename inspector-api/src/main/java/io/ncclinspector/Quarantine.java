package io.ncclinspector;

/**
 * Why a record's GPU timing is not trusted. A quarantined record is still delivered (timed by the
 * CPU fallback), but written apart from the normal output, so that bad timestamps are visible
 * instead of silently turning into figures.
 */
public enum Quarantine {
  /** Not quarantined. */
  NONE,
  /** A kernel channel's GPU start or stop timestamp was 0 although the interface carries them. */
  GPU_TIMESTAMP_ZERO,
  /** A kernel channel's GPU stop was at or before its start. */
  GPU_TIMESTAMP_REVERSED,
  /** A kernel channel lasted more than an hour by its GPU timestamps. */
  GPU_TIMESTAMP_ABSURD,
  /**
   * Every kernel channel carried another work item's timestamps, so the operation has no time
   * ({@link TimingSource#NONE}). NCCL 2.28 to 2.30 put a channel's profiler counter out of step
   * after a send/receive to the own rank (every AlltoAll), for the rest of the communicator's life;
   * this inspector predicts that from the send/receive and also recognises starts earlier than
   * the operation's kernel launch. See docs/nccl-defects-and-releases.md, on the NCCL defect.
   */
  KERNEL_CHANNEL_DESYNC,
  /**
   * NCCL announced kernel channels for the operation and never delivered one, although the same
   * communicator's operations got them before: NCCL stopped delivering kernel events (NCCL 2.29
   * and 2.30 do after a Broadcast on their AllGatherV path). The operation has no time
   * ({@link TimingSource#NONE}); its CPU span is only its enqueue.
   */
  KERNEL_EVENTS_MISSING;

  private final String jsonName = name().toLowerCase(java.util.Locale.ROOT);

  /** The name used in JSON output and counters, e.g. {@code gpu_timestamp_zero}. */
  public String jsonName() {
    return jsonName;
  }
}
