package io.ncclinspector.report.analysis;

import java.util.List;

/**
 * Counts of a quantity in consecutive bins.
 *
 * @param title what is counted
 * @param unit the quantity's unit
 * @param bins in order; the last may be an overflow bin ({@code upper} infinite)
 * @param total values counted
 * @param logarithmic whether the bins are equal on a log scale (axis labels go at decades)
 */
public record Histogram(String title, String unit, List<Bin> bins, long total,
    boolean logarithmic) {
  public Histogram {
    bins = List.copyOf(bins);
  }

  /** Values in [lower, upper). */
  public record Bin(double lower, double upper, long count) {}
}
