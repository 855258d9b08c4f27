package io.ncclinspector.report.output.chart;

import java.util.Locale;

/** Number formatting for axes, tooltips and tables. */
public final class Format {
  private Format() {}

  /** Three significant digits, with k/M/G for large values; "–" for missing. */
  public static String compact(double v) {
    if (!Double.isFinite(v)) {
      return "–";
    }
    double a = Math.abs(v);
    if (a >= 1e9) {
      return trim(v / 1e9) + "G";
    }
    if (a >= 1e6) {
      return trim(v / 1e6) + "M";
    }
    if (a >= 1e4) {
      return trim(v / 1e3) + "k";
    }
    return trim(v);
  }

  /** Up to three significant digits (more for integers up to 9999). */
  public static String trim(double v) {
    double a = Math.abs(v);
    String s;
    if (a == 0) {
      return "0";
    } else if (a >= 100) {
      s = String.format(Locale.ROOT, "%.0f", v);
    } else if (a >= 10) {
      s = String.format(Locale.ROOT, "%.1f", v);
    } else if (a >= 1) {
      s = String.format(Locale.ROOT, "%.2f", v);
    } else if (a >= 1e-6) {
      // Plain decimals down to a millionth: 0.0001 reads better than 1.00e-04.
      s = new java.math.BigDecimal(v).round(new java.math.MathContext(3)).stripTrailingZeros()
          .toPlainString();
    } else {
      s = String.format(Locale.ROOT, "%.1e", v);
    }
    if (s.contains(".") && !s.contains("e")) {
      s = s.replaceAll("0+$", "").replaceAll("\\.$", "");
    }
    return s;
  }

  /** A count with thousands separators. */
  public static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** A fraction as a percentage. */
  public static String percent(double f) {
    if (!Double.isFinite(f)) {
      return "–";
    }
    double p = f * 100;
    String s = p >= 10 || p == 0 ? String.format(Locale.ROOT, "%.0f", p)
        : String.format(Locale.ROOT, "%.1f", p);
    return (s.endsWith(".0") ? s.substring(0, s.length() - 2) : s) + "%";
  }

  /** A duration given in microseconds, in the unit that reads best. */
  public static String micros(double us) {
    if (!Double.isFinite(us)) {
      return "–";
    }
    double a = Math.abs(us);
    if (a >= 1e6) {
      return trim(us / 1e6) + " s";
    }
    if (a >= 1e3) {
      return trim(us / 1e3) + " ms";
    }
    return trim(us) + " µs";
  }
}
