package io.ncclinspector;

/**
 * A collective that ran slow against what is normal for its class.
 *
 * @param record the slow operation
 * @param baseline what is normal for its class, before this record
 * @param score how many robust standard deviations (1.4826 × MAD) above the median it took;
 *     infinite when it only crossed the absolute threshold against a zero spread
 * @param reason {@code "relative"} (score and ratio over the configured sensitivity) or
 *     {@code "absolute"} (over the absolute threshold)
 */
public record SlowCollectiveEvent(OperationRecord record, Baseline baseline, double score, String reason) {

  /**
   * The rolling baseline of one class of operations.
   *
   * @param operationClass the class
   * @param medianNanos median execution time of the recent window
   * @param madNanos median absolute deviation of the window
   * @param samples samples in the window
   */
  public record Baseline(OperationClass operationClass, long medianNanos, long madNanos, int samples) {}

  /** How many times the median this record took. */
  public double ratio() {
    return baseline.medianNanos() == 0 ? Double.POSITIVE_INFINITY
        : (double) record.executionNanos() / baseline.medianNanos();
  }
}
