package io.ncclinspector.prometheus.internal;

import java.util.Arrays;

/**
 * Upper bounds of a classic (cumulative) Prometheus histogram. Fixed for the life of a process so
 * that buckets add up across ranks and restarts.
 */
final class FixedBuckets {
  /** Execution time in seconds: 1-2.5-5 steps from 5 µs to 50 s. */
  static final FixedBuckets EXEC_TIME_SECONDS = new FixedBuckets(
      5e-6, 10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3,
      100e-3, 250e-3, 500e-3, 1, 2.5, 5, 10, 25, 50);
  /**
   * Bus bandwidth in GB/s: coarse below 50 GB/s (network, small messages), 50 GB/s steps where
   * NVLink-class links run, so that a drop from 400 to 350 GB/s moves a bucket.
   */
  static final FixedBuckets BUS_BANDWIDTH_GBS = new FixedBuckets(
      0.5, 1, 2, 5, 10, 20, 50, 100, 150, 200, 250, 300, 350, 400, 450, 500, 600, 800, 1000);

  private final double[] upperBounds;

  private FixedBuckets(double... upperBounds) {
    this.upperBounds = upperBounds;
  }

  int size() {
    return upperBounds.length;
  }

  /** The bounds with +Inf appended, as the Prometheus model wants them. */
  double[] boundsWithInfinity() {
    double[] b = Arrays.copyOf(upperBounds, upperBounds.length + 1);
    b[upperBounds.length] = Double.POSITIVE_INFINITY;
    return b;
  }

  /** Index of the bucket a value falls in; {@link #size()} for the +Inf bucket. */
  int indexOf(double value) {
    int i = Arrays.binarySearch(upperBounds, value);
    return i >= 0 ? i : -i - 1; /* le: a value equal to a bound belongs to that bound's bucket */
  }
}
