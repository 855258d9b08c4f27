package io.ncclinspector;

import java.util.Objects;

/**
 * When an operation ran and how long it took.
 *
 * @param executionNanos execution time: the longest single kernel channel (see {@code source})
 * @param source which clock the execution time comes from
 * @param quarantine why the GPU timing is not trusted ({@link Quarantine#NONE} normally)
 * @param gpuStartNanos earliest GPU start among the channels (global-timer ns), 0 without GPU timing;
 *     with {@link TimingSource#KERNEL_CUPTI} the kernel's start on CUPTI's clock (the host's wall
 *     clock in ns unless another tool changed it)
 * @param gpuSpanNanos latest GPU stop minus earliest GPU start over the channels, 0 without GPU timing
 * @param gpuSkewNanos latest channel GPU start minus the earliest: how far apart the channels began
 * @param startWallNanos wall-clock nanoseconds of the operation's start event (NCCL begins enqueueing it)
 * @param stopWallNanos wall-clock nanoseconds of its stop event (enqueue done; not completion). Taken
 *     in verbose mode and for operations without kernel channels; 0 otherwise (the hot path reads
 *     the clock only where a figure depends on it)
 * @param launchWallNanos wall-clock nanoseconds of the kernel launch that ran it (interface v5 and
 *     later, when NCCL started the operation on the launching thread), 0 when unknown
 * @param untimedReason why an operation that ran has no time, where the quarantine does not say
 *     ({@link UntimedReason#NONE} normally)
 */
public record Timing(long executionNanos, TimingSource source, Quarantine quarantine, long gpuStartNanos,
    long gpuSpanNanos, long gpuSkewNanos, long startWallNanos, long stopWallNanos, long launchWallNanos,
    UntimedReason untimedReason) {

  public Timing {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(quarantine, "quarantine");
    Objects.requireNonNull(untimedReason, "untimedReason");
  }

  /** A timing with no untimed reason. */
  public Timing(long executionNanos, TimingSource source, Quarantine quarantine, long gpuStartNanos,
      long gpuSpanNanos, long gpuSkewNanos, long startWallNanos, long stopWallNanos, long launchWallNanos) {
    this(executionNanos, source, quarantine, gpuStartNanos, gpuSpanNanos, gpuSkewNanos, startWallNanos,
        stopWallNanos, launchWallNanos, UntimedReason.NONE);
  }

  /** Whether the execution time is a measurement ({@code false}: {@link TimingSource#NONE}). */
  public boolean timed() {
    return source.timed();
  }

  /**
   * Whether the time can go into figures (distributions, bandwidths, the slow-collective detector):
   * measured, not quarantined, and the operation's own ({@link TimingSource#ownTime()}: a group's
   * time is reported with the record, never mixed into a class's figures).
   */
  public boolean trusted() {
    return quarantine == Quarantine.NONE && source.timed() && source.ownTime();
  }

  /** Execution time in whole microseconds, as the reference Inspector reports it. */
  public long executionMicros() {
    return executionNanos / 1000;
  }
}
