package io.ncclinspector.djl;

import java.util.Objects;

/**
 * What one kind of NCCL operation (AllReduce, Send, ...) added up to over a span of training.
 *
 * <p>The bandwidths are aggregates, not averages of per-record figures: the bus (or algorithm)
 * bytes moved by the timed operations divided by their summed execution time. A few large, fast
 * operations therefore weigh more than many tiny ones, as they do for the step time.
 *
 * @param operation the operation as NCCL spells it
 * @param operations operations completed
 * @param bytes their message bytes (NCCL's count times element size)
 * @param executionNanos summed execution time of the timed operations
 * @param untimedOperations operations without usable timing (quarantined GPU timestamps, zero
 *     time): counted in {@code operations} and {@code bytes}, not in time or bandwidth
 * @param busBandwidthGbs aggregate bus bandwidth in GB/s (1e9 bytes/s), nccl-tests factors; 0
 *     when nothing was timed
 * @param algorithmBandwidthGbs aggregate algorithm bandwidth in GB/s; 0 when nothing was timed
 */
public record OperationFigures(
    String operation,
    long operations,
    long bytes,
    long executionNanos,
    long untimedOperations,
    double busBandwidthGbs,
    double algorithmBandwidthGbs) {

  public OperationFigures {
    Objects.requireNonNull(operation, "operation");
  }

  /** Summed execution time in milliseconds. */
  public double executionMillis() {
    return executionNanos / 1e6;
  }
}
