package io.ncclinspector.djl;

import java.util.Collections;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;

/**
 * The NCCL operations completed over a span of training (one batch, one epoch, a whole training),
 * in total and by operation.
 *
 * @param operations operations completed
 * @param bytes their message bytes
 * @param executionNanos summed execution time of the timed operations (operations overlap on the
 *     GPU, so this is time spent in communication kernels, not wall-clock time)
 * @param untimedOperations operations without usable timing (see {@link OperationFigures})
 * @param byOperation figures by operation name, in name order; immutable
 */
public record CommunicationFigures(
    long operations,
    long bytes,
    long executionNanos,
    long untimedOperations,
    Map<String, OperationFigures> byOperation) {

  private static final CommunicationFigures EMPTY = new CommunicationFigures(0, 0, 0, 0, Map.of());

  public CommunicationFigures {
    byOperation = Collections.unmodifiableMap(new TreeMap<>(byOperation));
  }

  /** No operation at all. */
  public static CommunicationFigures empty() {
    return EMPTY;
  }

  /** Summed execution time in milliseconds. */
  public double executionMillis() {
    return executionNanos / 1e6;
  }

  /** Aggregate bus bandwidth of one operation in GB/s, if it was timed in this span. */
  public OptionalDouble busBandwidthGbs(String operation) {
    OperationFigures f = byOperation.get(operation);
    return f == null || f.executionNanos() == 0 ? OptionalDouble.empty() : OptionalDouble.of(f.busBandwidthGbs());
  }

  /** Whether no operation completed in this span. */
  public boolean isEmpty() {
    return operations == 0;
  }
}
