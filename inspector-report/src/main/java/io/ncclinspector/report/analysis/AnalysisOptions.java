package io.ncclinspector.report.analysis;

import io.ncclinspector.report.model.Exclusion;
import java.util.Objects;

/**
 * Choices that change the figures.
 *
 * @param sizeBucketing how message sizes are grouped
 * @param allTiming also use CPU-timed records in the performance figures
 * @param clockSync whether straggler analysis corrects per-rank clock offsets
 * @param lateThresholdMicros how far behind the mean arrival of the other ranks the last rank
 *     must be for the collective to count as held up by it
 * @param worstCollectives how many of the most delayed collectives are listed
 */
public record AnalysisOptions(SizeBucketing sizeBucketing, boolean allTiming, ClockSync clockSync,
    double lateThresholdMicros, int worstCollectives) {
  public AnalysisOptions {
    Objects.requireNonNull(sizeBucketing, "sizeBucketing");
    Objects.requireNonNull(clockSync, "clockSync");
    if (!(lateThresholdMicros >= 0) || Double.isInfinite(lateThresholdMicros)) {
      throw new IllegalArgumentException("late threshold must be a finite number >= 0");
    }
    if (worstCollectives < 0) {
      throw new IllegalArgumentException("worstCollectives must not be negative");
    }
  }

  public static AnalysisOptions defaults() {
    return new AnalysisOptions(SizeBucketing.POW2, false, ClockSync.AUTO, 20, 1000);
  }

  /** SQL condition selecting the records the performance figures use. */
  public String includedSql() {
    return allTiming
        ? "(excluded_reason IS NULL OR excluded_reason = '" + Exclusion.CPU_TIMING.label() + "')"
        : "excluded_reason IS NULL";
  }
}
