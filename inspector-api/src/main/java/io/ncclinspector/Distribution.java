package io.ncclinspector;

/** A summary of a distribution (from an HdrHistogram: values within 1%). */
public record Distribution(long count, double min, double mean, double p50, double p90, double p99, double max) {
  public static final Distribution EMPTY = new Distribution(0, 0, 0, 0, 0, 0, 0);
}
