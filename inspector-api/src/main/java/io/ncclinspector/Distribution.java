package io.ncclinspector;

/** A summary of a distribution (values within 1%: each is its histogram bucket's highest, the mean from bucket midpoints). */
public record Distribution(long count, double min, double mean, double p50, double p90, double p99, double max) {
  public static final Distribution EMPTY = new Distribution(0, 0, 0, 0, 0, 0, 0);
}
