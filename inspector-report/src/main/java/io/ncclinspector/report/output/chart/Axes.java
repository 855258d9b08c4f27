package io.ncclinspector.report.output.chart;

import java.util.List;
import java.util.function.DoubleFunction;

/** Draws the frame, grid, ticks and titles shared by the charts. */
final class Axes {
  private Axes() {}

  /** Horizontal grid lines and labels for a vertical scale. */
  static void yAxis(Svg svg, Scale y, double left, double right, String title,
      DoubleFunction<String> label) {
    for (double t : y.ticks()) {
      double py = y.map(t);
      svg.line(left, py, right, py, "grid");
      svg.text(left - 6, py + 4, label.apply(t), "tick", "end");
    }
    svg.line(left, y.map(y.lower()), left, y.map(y.upper()), "axis");
    if (title != null) {
      svg.verticalText(14, (y.map(y.lower()) + y.map(y.upper())) / 2, title, "axis-title");
    }
  }

  /** Tick marks and labels at given x positions, plus the x axis line and title. */
  static void xAxis(Svg svg, List<double[]> ticks, List<String> labels, double left, double right,
      double bottom, String title) {
    svg.line(left, bottom, right, bottom, "axis");
    for (int i = 0; i < ticks.size(); i++) {
      double px = ticks.get(i)[0];
      svg.line(px, bottom, px, bottom + 4, "axis");
      svg.text(px, bottom + 16, labels.get(i), "tick", "middle");
    }
    if (title != null) {
      svg.text((left + right) / 2, bottom + 34, title, "axis-title", "middle");
    }
  }
}
