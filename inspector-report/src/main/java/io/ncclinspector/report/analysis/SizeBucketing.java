package io.ncclinspector.report.analysis;

import io.ncclinspector.report.engine.SqlDialect;
import java.util.Locale;

/** How message sizes are grouped in the summaries. */
public enum SizeBucketing {
  /**
   * Power-of-two ranges [2^k, 2^(k+1)), named by their lower bound: sizes that differ by a few
   * bytes (padding, odd element counts) share a row, and the bandwidth-by-size chart gets one
   * point per octave.
   */
  POW2,
  /** One group per exact size, as the reference exporter groups. */
  EXACT;

  /**
   * SQL for the bucket (its lower bound in bytes) of a BIGINT size expression, in SQL every engine
   * accepts; defined for sizes up to 2^61.
   */
  public String sql(String size, SqlDialect d) {
    if (this == EXACT) {
      return size;
    }
    String k = "floor(log2(greatest(" + size + ", 1)))";
    // log2 in floating point can land one off next to a power of two; the checks correct it.
    return "CASE WHEN " + size + " IS NULL THEN NULL WHEN " + size + " < 1 THEN CAST(0 AS BIGINT)"
        + " WHEN " + d.powerOfTwo(k) + " > " + size + " THEN " + d.powerOfTwo(k + " - 1")
        + " WHEN " + d.powerOfTwo(k + " + 1") + " <= " + size + " THEN "
        + d.powerOfTwo(k + " + 1") + " ELSE " + d.powerOfTwo(k) + " END";
  }

  /** The bucket containing a size, computed in Java (the same rule). */
  public long bucketOf(long size) {
    if (this == EXACT) {
      return size;
    }
    return size < 1 ? 0 : Long.highestOneBit(size);
  }

  /** A size as people read it: binary units, exact where the value allows. */
  public static String label(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = bytes;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    if (v == Math.rint(v)) {
      return String.format(Locale.ROOT, "%d %s", (long) v, units[u]);
    }
    return String.format(Locale.ROOT, v < 10 ? "%.2f %s" : "%.1f %s", v, units[u]);
  }

  /** How a bucket is named in outputs. */
  public String bucketLabel(long lower) {
    return this == POW2 && lower > 0 ? label(lower) + "–" + label(lower * 2) : label(lower);
  }
}
