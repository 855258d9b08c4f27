package io.ncclinspector.report.output.chart;

import java.util.ArrayList;
import java.util.List;

/**
 * Box plots: box from the 25th to the 75th percentile with the median, whiskers from the 5th to
 * the 95th, and the minimum and maximum as hollow dots. A logarithmic axis is used when the
 * values span more than two decades.
 */
public final class BoxPlotChart {
  /** One box. */
  public record Box(String label, double min, double p05, double p25, double p50, double p75,
      double p95, double max, long count) {}

  private static final double HEIGHT = 300;
  private static final double LEFT = 70;
  private static final double TOP = 16;
  private static final double BOTTOM = 70;

  private BoxPlotChart() {}

  public static String render(String title, String yTitle, List<Box> boxes, double width) {
    Svg svg = new Svg(width, HEIGHT, title);
    double right = width - 16;
    double bottom = HEIGHT - BOTTOM;
    List<Box> usable = boxes.stream().filter(b -> Double.isFinite(b.p50())).toList();
    if (usable.isEmpty()) {
      svg.text(width / 2, HEIGHT / 2, "no data", "empty", "middle");
      return svg.toSvg();
    }
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (Box b : usable) {
      for (double v : new double[] {b.min(), b.p05(), b.max(), b.p95()}) {
        if (Double.isFinite(v)) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
    }
    boolean log = lo > 0 && hi / lo > 100;
    Scale y = log ? Scale.log(lo, hi, bottom, TOP) : Scale.linear(Math.min(0, lo), hi, bottom, TOP);
    Axes.yAxis(svg, y, LEFT, right, yTitle, Format::compact);
    double slot = (right - LEFT) / usable.size();
    double w = Math.max(4, Math.min(36, slot * 0.55));
    List<double[]> ticks = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    for (int i = 0; i < usable.size(); i++) {
      Box b = usable.get(i);
      double cx = LEFT + slot * (i + 0.5);
      String tip = String.format(java.util.Locale.ROOT,
          "%s (%s records): min %s, p5 %s, p25 %s, median %s, p75 %s, p95 %s, max %s", b.label(),
          Format.count(b.count()), Format.trim(b.min()), Format.trim(b.p05()),
          Format.trim(b.p25()), Format.trim(b.p50()), Format.trim(b.p75()), Format.trim(b.p95()),
          Format.trim(b.max()));
      svg.line(cx, y.map(b.p05()), cx, y.map(b.p25()), "whisker");
      svg.line(cx, y.map(b.p75()), cx, y.map(b.p95()), "whisker");
      svg.line(cx - w / 4, y.map(b.p05()), cx + w / 4, y.map(b.p05()), "whisker");
      svg.line(cx - w / 4, y.map(b.p95()), cx + w / 4, y.map(b.p95()), "whisker");
      double top = y.map(b.p75());
      svg.rect(cx - w / 2, top, w, Math.max(1, y.map(b.p25()) - top), "box",
          Palette.color(0), tip);
      svg.line(cx - w / 2, y.map(b.p50()), cx + w / 2, y.map(b.p50()), "median");
      svg.circle(cx, y.map(b.min()), 2.5, "extreme", null, "min " + Format.trim(b.min()));
      svg.circle(cx, y.map(b.max()), 2.5, "extreme", null, "max " + Format.trim(b.max()));
      ticks.add(new double[] {cx});
      labels.add(b.label());
    }
    // Labels of many boxes are staggered over two rows so that they do not overlap.
    double bottomLine = bottom;
    svg.line(LEFT, bottomLine, right, bottomLine, "axis");
    for (int i = 0; i < ticks.size(); i++) {
      double px = ticks.get(i)[0];
      double row = usable.size() > 8 && i % 2 == 1 ? 28 : 14;
      svg.line(px, bottomLine, px, bottomLine + row - 10, "axis");
      svg.text(px, bottomLine + row + 2, labels.get(i), "tick small", "middle");
    }
    return svg.toSvg();
  }
}
