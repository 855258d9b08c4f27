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
    return sql(size, exponent(size), d);
  }

  /**
   * As {@link #sql(String, SqlDialect)}, given {@code k}, the SQL of {@link #exponent} for the
   * size (a column of an inner query, say): a query that groups by the bucket then computes the
   * logarithm once a row instead of in each of the checks.
   */
  public String sql(String size, String k, SqlDialect d) {
    if (this == EXACT) {
      return size;
    }
    // log2 in floating point can land one off next to a power of two; the checks correct it.
    return "CASE WHEN " + size + " IS NULL THEN NULL WHEN " + size + " < 1 THEN CAST(0 AS BIGINT)"
        + " WHEN " + d.powerOfTwo(k) + " > " + size + " THEN " + d.powerOfTwo(k + " - 1")
        + " WHEN " + d.powerOfTwo(k + " + 1") + " <= " + size + " THEN "
        + d.powerOfTwo(k + " + 1") + " ELSE " + d.powerOfTwo(k) + " END";
  }

  /** SQL: the approximate base-2 exponent of a size that {@link #sql(String, String, SqlDialect)} corrects. */
  public String exponent(String size) {
    return "floor(log2(greatest(" + size + ", 1)))";
  }

  /**
   * SQL: whether {@code size} lies in the bucket {@code bucket} (its lower bound, as {@link #sql}
   * gives it), by comparisons alone: [0 or below, 1) for bucket 0, [2^k, 2^(k+1)) for a power of
   * two, the size itself with {@link #EXACT}. A size in no bucket (null) is in none.
   */
  public String containsSql(String bucket, String size) {
    if (this == EXACT) {
      return size + " = " + bucket;
    }
    return "(" + size + " < CASE WHEN " + bucket + " = 0 THEN 1 ELSE 2 * " + bucket + " END AND ("
        + bucket + " = 0 OR " + size + " >= " + bucket + "))";
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
