package io.ncclinspector.report.output.chart;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleFunction;

/** Vertical bars over categories; highlighted bars are drawn in the alert colour. */
public final class BarChart {
  /** One bar. */
  public record Bar(String label, double value, boolean highlighted, String tooltip) {}

  private static final double HEIGHT = 280;
  private static final double LEFT = 70;
  private static final double TOP = 16;
  private static final double BOTTOM = 52;

  private static final double MIN_LABEL_SPACING = 22;

  private BarChart() {}

  /**
   * Which bars get an axis label: every highlighted bar, then regularly spaced others that do
   * not crowd a label already placed.
   */
  private static List<Integer> labelled(List<Bar> bars, double slot) {
    List<Integer> chosen = new ArrayList<>();
    for (int i = 0; i < bars.size(); i++) {
      if (bars.get(i).highlighted()) {
        chosen.add(i);
      }
    }
    int every = Math.max(1, (int) Math.ceil(MIN_LABEL_SPACING / slot));
    for (int i = 0; i < bars.size(); i += every) {
      final int candidate = i;
      if (chosen.stream().allMatch(c -> Math.abs(c - candidate) * slot >= MIN_LABEL_SPACING)) {
        chosen.add(i);
      }
    }
    chosen.sort(Integer::compare);
    return chosen;
  }

  public static String render(String title, String xTitle, String yTitle, List<Bar> bars,
      double width, DoubleFunction<String> yLabel) {
    Svg svg = new Svg(width, HEIGHT, title);
    double right = width - 16;
    double bottom = HEIGHT - BOTTOM;
    if (bars.isEmpty()) {
      svg.text(width / 2, HEIGHT / 2, "no data", "empty", "middle");
      return svg.toSvg();
    }
    double max = bars.stream().mapToDouble(Bar::value).filter(Double::isFinite).max().orElse(0);
    Scale y = Scale.linear(0, max > 0 ? max : 1, bottom, TOP);
    Axes.yAxis(svg, y, LEFT, right, yTitle, yLabel);
    double slot = (right - LEFT) / bars.size();
    double barWidth = Math.max(1, Math.min(40, slot * 0.7));
    for (int i = 0; i < bars.size(); i++) {
      Bar b = bars.get(i);
      double cx = LEFT + slot * (i + 0.5);
      double v = Double.isFinite(b.value()) ? b.value() : 0;
      double top = y.map(v);
      svg.rect(cx - barWidth / 2, top, barWidth, bottom - top, b.highlighted() ? "bar alert"
          : "bar", b.highlighted() ? Palette.ALERT : Palette.NEUTRAL, b.tooltip());
    }
    List<Integer> labelled = labelled(bars, slot);
    List<double[]> ticks = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    for (int i : labelled) {
      ticks.add(new double[] {LEFT + slot * (i + 0.5)});
      labels.add(bars.get(i).label());
    }
    Axes.xAxis(svg, ticks, labels, LEFT, right, bottom, xTitle);
    return svg.toSvg();
  }
}
