package io.ncclinspector.report.output.chart;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleFunction;

/**
 * Lines with point markers over a logarithmic x axis (message sizes), one line per series, with
 * a legend on the right. Every point carries a tooltip.
 */
public final class LineChart {
  /** A data point; {@code tooltip} is shown on hover. */
  public record Point(double x, double y, String tooltip) {}

  public record Series(String name, List<Point> points) {
    public Series {
      points = List.copyOf(points);
    }
  }

  private static final double WIDTH = 960;
  private static final double HEIGHT = 360;
  private static final double LEFT = 70;
  private static final double TOP = 20;
  private static final double LEGEND = 230;
  private static final double BOTTOM = 52;
  private static final int MAX_LEGEND = 16;

  private LineChart() {}

  /**
   * Renders the chart.
   *
   * @param xLabel formats x tick values (sizes)
   * @param logY logarithmic y axis
   */
  public static String render(String title, String xTitle, String yTitle, List<Series> series,
      DoubleFunction<String> xLabel, boolean logY) {
    Svg svg = new Svg(WIDTH, HEIGHT, title);
    double right = WIDTH - LEGEND;
    double bottom = HEIGHT - BOTTOM;
    double xMin = Double.POSITIVE_INFINITY;
    double xMax = Double.NEGATIVE_INFINITY;
    double yMin = Double.POSITIVE_INFINITY;
    double yMax = Double.NEGATIVE_INFINITY;
    for (Series s : series) {
      for (Point p : s.points()) {
        if (usable(p, logY)) {
          xMin = Math.min(xMin, p.x());
          xMax = Math.max(xMax, p.x());
          yMin = Math.min(yMin, p.y());
          yMax = Math.max(yMax, p.y());
        }
      }
    }
    if (!Double.isFinite(xMin)) {
      svg.text(WIDTH / 2, HEIGHT / 2, "no data", "empty", "middle");
      return svg.toSvg();
    }
    // Sizes: whole powers of two around the data, one octave of margin on each side so that
    // no point sits on the frame.
    double x0 = Math.max(0.5, Math.pow(2, Math.floor(Math.log(Math.max(xMin, 1)) / Math.log(2))
        - 1));
    double x1 = Math.pow(2, Math.ceil(Math.log(Math.max(xMax, 1)) / Math.log(2)) + 1);
    Scale x = Scale.logExact(x0, x1, LEFT + 10, right - 10);
    Scale y = logY ? Scale.log(yMin, yMax, bottom, TOP) : Scale.linear(Math.min(0, yMin), yMax,
        bottom, TOP);
    Axes.yAxis(svg, y, LEFT, right, yTitle, Format::compact);
    List<double[]> ticks = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    int octaves = (int) Math.round(Math.log(x1 / x0) / Math.log(2));
    int step = Math.max(1, (int) Math.ceil(octaves / 9.0));
    if (step % 2 == 1 && step > 1) {
      step++;
    }
    for (int k = 1; k < octaves; k += step) {
      double v = x0 * Math.pow(2, k);
      ticks.add(new double[] {x.map(v)});
      labels.add(xLabel.apply(v));
    }
    Axes.xAxis(svg, ticks, labels, LEFT, right, bottom, xTitle);

    for (int i = 0; i < series.size(); i++) {
      Series s = series.get(i);
      String color = Palette.color(i);
      List<Point> pts = s.points().stream().filter(p -> usable(p, logY)).toList();
      double[] xy = new double[pts.size() * 2];
      for (int k = 0; k < pts.size(); k++) {
        xy[2 * k] = x.map(pts.get(k).x());
        xy[2 * k + 1] = y.map(pts.get(k).y());
      }
      if (pts.size() > 1) {
        svg.polyline(xy, "series", color);
      }
      for (int k = 0; k < pts.size(); k++) {
        svg.circle(xy[2 * k], xy[2 * k + 1], 3.5, "point", color, pts.get(k).tooltip());
      }
      if (i < MAX_LEGEND) {
        double ly = TOP + 6 + i * 18;
        svg.rect(right + 16, ly - 9, 12, 12, "swatch", color, null);
        svg.text(right + 34, ly + 1, s.name(), "legend", "start");
      }
    }
    if (series.size() > MAX_LEGEND) {
      svg.text(right + 16, TOP + 6 + MAX_LEGEND * 18, "+" + (series.size() - MAX_LEGEND)
          + " more (see table)", "legend", "start");
    }
    return svg.toSvg();
  }

  private static boolean usable(Point p, boolean logY) {
    return Double.isFinite(p.x()) && Double.isFinite(p.y()) && p.x() > 0 && (!logY || p.y() > 0);
  }
}
