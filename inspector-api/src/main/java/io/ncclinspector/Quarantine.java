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
   * A kernel channel's GPU start came more than 1 ms before its operation was enqueued: the
   * timestamp of other, earlier work that NCCL delivered from a reused slot. Judged only once the
   * GPU clock was seen to run on host time.
   */
  GPU_TIMESTAMP_STALE;

  /** The name used in JSON output and counters, e.g. {@code gpu_timestamp_zero}. */
  public String jsonName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
