package io.ncclinspector;

/** A summary of a distribution (from an HdrHistogram, 3 significant digits). */
public record Distribution(long count, double min, double mean, double p50, double p90, double p99, double max) {
  public static final Distribution EMPTY = new Distribution(0, 0, 0, 0, 0, 0, 0);
}
