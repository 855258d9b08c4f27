package io.ncclinspector.report.output.chart;

import java.util.ArrayList;
import java.util.List;

/** Maps data values to pixels, linearly or logarithmically, and proposes tick values. */
public final class Scale {
  private final double lo;
  private final double hi;
  private final double from;
  private final double to;
  private final boolean log;

  private Scale(double lo, double hi, double from, double to, boolean log) {
    this.lo = lo;
    this.hi = hi;
    this.from = from;
    this.to = to;
    this.log = log;
  }

  /** A linear scale over [lo, hi] widened to nice bounds. */
  public static Scale linear(double lo, double hi, double from, double to) {
    if (!(hi > lo)) {
      hi = lo + (lo == 0 ? 1 : Math.abs(lo) * 0.1);
    }
    double step = niceStep((hi - lo) / 5);
    return new Scale(Math.floor(lo / step) * step, Math.ceil(hi / step) * step, from, to, false);
  }

  /** A base-10 log scale over [lo, hi] (both positive) widened to whole decades. */
  public static Scale log(double lo, double hi, double from, double to) {
    lo = Math.max(lo, 1e-12);
    hi = Math.max(hi, lo * 10);
    return new Scale(Math.pow(10, Math.floor(Math.log10(lo))),
        Math.pow(10, Math.ceil(Math.log10(hi))), from, to, true);
  }

  /** A log scale with exactly these bounds (used for sizes, which are powers of two). */
  public static Scale logExact(double lo, double hi, double from, double to) {
    lo = Math.max(lo, 1e-12);
    hi = Math.max(hi, lo * 2);
    return new Scale(lo, hi, from, to, true);
  }

  public double map(double v) {
    double t;
    if (log) {
      v = Math.max(v, lo);
      t = (Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo));
    } else {
      t = (v - lo) / (hi - lo);
    }
    return from + t * (to - from);
  }

  public double lower() {
    return lo;
  }

  public double upper() {
    return hi;
  }

  /** Tick values: nice steps for linear scales, decades for log scales. */
  public List<Double> ticks() {
    List<Double> ticks = new ArrayList<>();
    if (log) {
      for (double v = lo; v <= hi * 1.0001; v *= 10) {
        ticks.add(v);
      }
      return ticks;
    }
    double step = niceStep((hi - lo) / 5);
    for (double v = lo; v <= hi + step * 1e-6; v += step) {
      ticks.add(Math.abs(v) < step * 1e-9 ? 0 : v);
    }
    return ticks;
  }

  static double niceStep(double raw) {
    if (!(raw > 0) || !Double.isFinite(raw)) {
      return 1;
    }
    double p = Math.pow(10, Math.floor(Math.log10(raw)));
    double f = raw / p;
    double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
    return nice * p;
  }
}
