package io.ncclinspector.report.output.chart;

import io.ncclinspector.report.analysis.Histogram;
import java.util.ArrayList;
import java.util.List;

/** A histogram: adjacent bars, one per bin, labelled at a few bin edges. */
public final class HistogramChart {
  private static final double HEIGHT = 240;
  private static final double LEFT = 64;
  private static final double TOP = 16;
  private static final double BOTTOM = 52;

  private HistogramChart() {}

  private static boolean isDecade(double v) {
    if (!(v > 0)) {
      return false;
    }
    double l = Math.log10(v);
    return Math.abs(l - Math.rint(l)) < 1e-9;
  }

  public static String render(Histogram h, double width, String xTitle) {
    Svg svg = new Svg(width, HEIGHT, h.title());
    double right = width - 14;
    double bottom = HEIGHT - BOTTOM;
    List<Histogram.Bin> bins = h.bins();
    if (bins.isEmpty() || h.total() == 0) {
      svg.text(width / 2, HEIGHT / 2, "no data", "empty", "middle");
      return svg.toSvg();
    }
    long max = bins.stream().mapToLong(Histogram.Bin::count).max().orElse(1);
    Scale y = Scale.linear(0, Math.max(1, max), bottom, TOP);
    Axes.yAxis(svg, y, LEFT, right, "count", Format::compact);
    double slot = (right - LEFT) / bins.size();
    List<double[]> ticks = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    int labelEvery = Math.max(1, (int) Math.ceil(bins.size() / 6.0));
    for (int i = 0; i < bins.size(); i++) {
      Histogram.Bin b = bins.get(i);
      double x0 = LEFT + slot * i;
      double top = y.map(b.count());
      boolean overflow = Double.isInfinite(b.upper());
      String range = overflow ? "≥ " + Format.compact(b.lower()) + " " + h.unit()
          : Format.compact(b.lower()) + " – " + Format.compact(b.upper()) + " " + h.unit();
      svg.rect(x0 + 0.5, top, Math.max(0.5, slot - 1), bottom - top,
          overflow ? "bar overflow" : "bar", overflow ? "#999999" : Palette.NEUTRAL,
          range + ": " + Format.count(b.count()));
      if (h.logarithmic() ? isDecade(b.lower()) || i == 0 : i % labelEvery == 0) {
        ticks.add(new double[] {x0});
        labels.add(Format.compact(b.lower()));
      }
    }
    Axes.xAxis(svg, ticks, labels, LEFT, right, bottom, xTitle);
    return svg.toSvg();
  }
}
