package io.ncclinspector.report.output.chart;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleFunction;

/**
 * A matrix of coloured cells, rows × columns (ranks × peers): the darker, the larger the value.
 * Cells without a value stay blank; each cell with one carries its tooltip. A stepped legend
 * under the matrix gives the scale.
 */
public final class HeatmapChart {
  /** One cell with a value. */
  public record Cell(int row, int column, double value, String tooltip) {}

  /** The two ends of a colour ramp, light to dark ({@code #rrggbb}). */
  public record Ramp(String light, String dark) {}

  /** Light yellow to dark red: waits. */
  public static final Ramp WARM = new Ramp("#FFF5EB", "#A63603");
  /** Light to dark blue: bandwidth. */
  public static final Ramp COOL = new Ramp("#F7FBFF", "#08519C");

  private static final double LEFT = 64;
  private static final double TOP = 12;
  private static final double RIGHT = 16;
  private static final double AXIS = 44;
  private static final double LEGEND = 46;
  private static final double MIN_LABEL_SPACING = 18;
  private static final int LEGEND_STEPS = 5;
  private static final double LEGEND_STEP_WIDTH = 56;

  private HeatmapChart() {}

  /**
   * @param rows the row keys, top to bottom
   * @param columns the column keys, left to right
   * @param maxWidth the widest the chart may be; cells are 8 to 36 px square
   */
  public static String render(String title, String rowTitle, String columnTitle,
      List<Integer> rows, List<Integer> columns, List<Cell> cells, Ramp ramp,
      DoubleFunction<String> valueLabel, double maxWidth) {
    double side = Math.max(8, Math.min(36, (maxWidth - LEFT - RIGHT)
        / Math.max(1, columns.size())));
    double width = Math.max(LEFT + LEGEND_STEPS * LEGEND_STEP_WIDTH + RIGHT,
        LEFT + side * columns.size() + RIGHT);
    double bottom = TOP + side * rows.size();
    Svg svg = new Svg(width, bottom + AXIS + LEGEND, title);
    if (rows.isEmpty() || columns.isEmpty() || cells.isEmpty()) {
      svg.text(width / 2, (bottom + AXIS) / 2, "no data", "empty", "middle");
      return svg.toSvg();
    }
    Map<Integer, Integer> rowAt = index(rows);
    Map<Integer, Integer> columnAt = index(columns);
    double max = cells.stream().mapToDouble(Cell::value).filter(Double::isFinite).max()
        .orElse(0);
    svg.rect(LEFT, TOP, side * columns.size(), side * rows.size(), "heat-frame", "#F4F6F9",
        null);
    for (Cell c : cells) {
      Integer r = rowAt.get(c.row());
      Integer k = columnAt.get(c.column());
      if (r == null || k == null) {
        continue;
      }
      double v = Double.isFinite(c.value()) ? c.value() : 0;
      svg.rect(LEFT + k * side + 0.5, TOP + r * side + 0.5, side - 1, side - 1, "heat",
          color(ramp, max > 0 ? v / max : 0), c.tooltip());
    }
    int every = Math.max(1, (int) Math.ceil(MIN_LABEL_SPACING / side));
    for (int i = 0; i < rows.size(); i += every) {
      svg.text(LEFT - 6, TOP + (i + 0.5) * side + 4, Integer.toString(rows.get(i)), "tick",
          "end");
    }
    for (int i = 0; i < columns.size(); i += every) {
      svg.text(LEFT + (i + 0.5) * side, bottom + 14, Integer.toString(columns.get(i)), "tick",
          "middle");
    }
    svg.verticalText(14, (TOP + bottom) / 2, rowTitle, "axis-title");
    svg.text(LEFT + side * columns.size() / 2, bottom + 32, columnTitle, "axis-title", "middle");
    legend(svg, ramp, max, valueLabel, bottom + AXIS);
    return svg.toSvg();
  }

  /** Stepped swatches from 0 to the maximum, each labelled with its upper value. */
  private static void legend(Svg svg, Ramp ramp, double max, DoubleFunction<String> label,
      double y) {
    double w = LEGEND_STEP_WIDTH;
    for (int i = 0; i < LEGEND_STEPS; i++) {
      double f = (i + 1) / (double) LEGEND_STEPS;
      svg.rect(LEFT + i * w, y, w - 2, 12, "heat-legend", color(ramp, f), null);
      svg.text(LEFT + i * w + (w - 2) / 2, y + 26, "≤ " + label.apply(max * f), "tick small",
          "middle");
    }
  }

  private static Map<Integer, Integer> index(List<Integer> keys) {
    Map<Integer, Integer> at = new HashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      at.put(keys.get(i), i);
    }
    return at;
  }

  /** The ramp's colour at {@code f} from 0 (light) to 1 (dark). */
  static String color(Ramp ramp, double f) {
    double t = Math.max(0, Math.min(1, f));
    int a = Integer.parseInt(ramp.light().substring(1), 16);
    int b = Integer.parseInt(ramp.dark().substring(1), 16);
    int[] out = new int[3];
    for (int s = 0; s < 3; s++) {
      int shift = 16 - 8 * s;
      int x = (a >> shift) & 0xff;
      int y = (b >> shift) & 0xff;
      out[s] = (int) Math.round(x + (y - x) * t);
    }
    return String.format(Locale.ROOT, "#%02X%02X%02X", out[0], out[1], out[2]);
  }
}
