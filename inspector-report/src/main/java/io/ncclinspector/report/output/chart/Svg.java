package io.ncclinspector.report.output.chart;

import java.util.Locale;

/**
 * A minimal SVG writer: elements are appended as text, every attribute value and text node is
 * escaped, coordinates are rounded to 0.1 px. Charts built with it are plain inline SVG, with
 * tooltips as {@code <title>} children, no script and no external reference.
 */
public final class Svg {
  private final StringBuilder b = new StringBuilder();
  private final double width;
  private final double height;

  public Svg(double width, double height, String label) {
    this.width = width;
    this.height = height;
    b.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"img\" width=\"")
        .append(n(width)).append("\" height=\"").append(n(height)).append("\" viewBox=\"0 0 ")
        .append(n(width)).append(' ').append(n(height)).append("\" aria-label=\"")
        .append(escape(label)).append("\">");
    b.append("<title>").append(escape(label)).append("</title>");
  }

  public double width() {
    return width;
  }

  public double height() {
    return height;
  }

  public Svg line(double x1, double y1, double x2, double y2, String cssClass) {
    b.append("<line x1=\"").append(n(x1)).append("\" y1=\"").append(n(y1)).append("\" x2=\"")
        .append(n(x2)).append("\" y2=\"").append(n(y2)).append("\" class=\"")
        .append(escape(cssClass)).append("\"/>");
    return this;
  }

  /** A rectangle with an optional tooltip; {@code fill} may be null (then CSS decides). */
  public Svg rect(double x, double y, double w, double h, String cssClass, String fill,
      String tooltip) {
    b.append("<rect x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" width=\"")
        .append(n(Math.max(0, w))).append("\" height=\"").append(n(Math.max(0, h)))
        .append("\" class=\"").append(escape(cssClass)).append('"');
    fill(fill);
    closeWithTooltip("rect", tooltip);
    return this;
  }

  public Svg circle(double cx, double cy, double r, String cssClass, String fill, String tooltip) {
    b.append("<circle cx=\"").append(n(cx)).append("\" cy=\"").append(n(cy)).append("\" r=\"")
        .append(n(r)).append("\" class=\"").append(escape(cssClass)).append('"');
    fill(fill);
    closeWithTooltip("circle", tooltip);
    return this;
  }

  /** An open polyline through the points (x0, y0, x1, y1, ...). */
  public Svg polyline(double[] xy, String cssClass, String stroke) {
    b.append("<polyline points=\"");
    for (int i = 0; i + 1 < xy.length; i += 2) {
      b.append(i == 0 ? "" : " ").append(n(xy[i])).append(',').append(n(xy[i + 1]));
    }
    b.append("\" class=\"").append(escape(cssClass)).append('"');
    if (stroke != null) {
      b.append(" stroke=\"").append(escape(stroke)).append('"');
    }
    b.append("/>");
    return this;
  }

  /** Text; {@code anchor} is start, middle or end. */
  public Svg text(double x, double y, String text, String cssClass, String anchor) {
    b.append("<text x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" class=\"")
        .append(escape(cssClass)).append("\" text-anchor=\"").append(escape(anchor))
        .append("\">").append(escape(text)).append("</text>");
    return this;
  }

  /** Text rotated by -90° around its anchor (vertical axis titles). */
  public Svg verticalText(double x, double y, String text, String cssClass) {
    b.append("<text x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" class=\"")
        .append(escape(cssClass)).append("\" text-anchor=\"middle\" transform=\"rotate(-90 ")
        .append(n(x)).append(' ').append(n(y)).append(")\">").append(escape(text))
        .append("</text>");
    return this;
  }

  private void fill(String fill) {
    if (fill != null) {
      b.append(" fill=\"").append(escape(fill)).append('"');
    }
  }

  private void closeWithTooltip(String element, String tooltip) {
    if (tooltip == null) {
      b.append("/>");
    } else {
      b.append("><title>").append(escape(tooltip)).append("</title></").append(element)
          .append('>');
    }
  }

  /** The finished element. */
  public String toSvg() {
    return b + "</svg>";
  }

  static String n(double v) {
    if (!Double.isFinite(v)) {
      return "0";
    }
    double r = Math.round(v * 10) / 10.0;
    return r == Math.rint(r) ? Long.toString((long) r) : String.format(Locale.ROOT, "%.1f", r);
  }

  /** XML escaping for text and attribute values; control characters are dropped. */
  public static String escape(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(s.length() + 8);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> {
          if (c >= 0x20 || c == '\t' || c == '\n') {
            out.append(c);
          }
        }
      }
    }
    return out.toString();
  }
}
