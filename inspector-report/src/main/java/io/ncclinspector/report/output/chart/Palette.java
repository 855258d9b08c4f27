package io.ncclinspector.report.output.chart;

/** Okabe–Ito and Tableau colours: distinguishable, also for colour-blind readers. */
public final class Palette {
  private static final String[] COLORS = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
      "#56B4E9", "#D55E00", "#F0E442", "#000000", "#8C564B", "#7F7F7F", "#17BECF", "#BCBD22"};
  /** The colour that marks a culprit. */
  public static final String ALERT = "#D62728";
  public static final String NEUTRAL = "#5B7DB1";

  private Palette() {}

  public static String color(int i) {
    return COLORS[Math.floorMod(i, COLORS.length)];
  }
}
