package io.ncclinspector.report.analysis;

/**
 * Why a record is kept in the Parquet export but left out of the performance figures
 * (percentiles, bandwidth charts). The first reason that applies is recorded.
 */
public enum Exclusion {
  /**
   * The message size is negative or above {@link #MAX_PLAUSIBLE_MESSAGE_BYTES}: the reference
   * Inspector computes sizes near 2^64 for 8-bit integer collectives (NCCL 2.28 names the type
   * "Unknown"), and its bandwidths are derived from that size.
   */
  INVALID_SIZE("invalid_size"),
  /** A negative execution time. */
  INVALID_TIME("invalid_time"),
  /** GPU timestamps were unusable: the record is CPU-timed and flagged (this project). */
  QUARANTINED("quarantined"),
  /**
   * Not timed from GPU timestamps ({@code kernel_cpu}, {@code collective_cpu}, {@code ce_cpu}):
   * CPU spans measure enqueueing or host callbacks, not the transfer. Included with
   * {@code --all-timing}.
   */
  CPU_TIMING("cpu_timing");

  /** 1 PiB: no single NCCL message comes close; anything larger is a computation error. */
  public static final long MAX_PLAUSIBLE_MESSAGE_BYTES = 1L << 50;

  private final String label;

  Exclusion(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
