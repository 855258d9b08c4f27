package io.ncclinspector.djl;

import java.util.Objects;

/**
 * Names of the metrics {@link NcclTrainingListener} adds to the trainer's
 * {@link ai.djl.metric.Metrics}, one value per batch callback. With the default prefix
 * {@code nccl_}, a training batch adds {@code nccl_comm_time} (milliseconds),
 * {@code nccl_comm_bytes} (bytes), {@code nccl_comm_operations} (count) and, for each operation
 * timed in the batch, {@code nccl_busbw_<Operation>} (GB/s), for example {@code nccl_busbw_AllReduce};
 * a validation batch adds the same with {@code validate_} after the prefix
 * ({@code nccl_validate_comm_time}, ...).
 *
 * @param prefix what every name starts with
 */
public record MetricNames(String prefix) {
  /** The default prefix. */
  public static final String DEFAULT_PREFIX = "nccl_";

  public MetricNames {
    Objects.requireNonNull(prefix, "prefix");
  }

  /** The names with {@link #DEFAULT_PREFIX}. */
  public static MetricNames defaults() {
    return new MetricNames(DEFAULT_PREFIX);
  }

  /** Time spent in collectives during the batch, milliseconds. */
  public String communicationTime(BatchKind kind) {
    return name(kind, "comm_time");
  }

  /** Message bytes of the batch's operations. */
  public String communicationBytes(BatchKind kind) {
    return name(kind, "comm_bytes");
  }

  /** Operations completed during the batch. */
  public String operations(BatchKind kind) {
    return name(kind, "comm_operations");
  }

  /** Aggregate bus bandwidth of one operation during the batch, GB/s. */
  public String busBandwidth(BatchKind kind, String operation) {
    return name(kind, "busbw_" + operation);
  }

  private String name(BatchKind kind, String base) {
    return prefix + kind.metricInfix() + base;
  }
}
