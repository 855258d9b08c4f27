package io.ncclinspector.report.spark;

import io.ncclinspector.report.engine.SqlDialect;
import io.ncclinspector.report.ingest.JsonLayout;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * Spark SQL's spelling of the {@link SqlDialect} pieces. Percentiles are Spark's {@code
 * percentile_approx} (Greenwald-Khanna summaries that merge across partitions, so memory stays
 * bounded whatever the data size): the value returned has a rank within {@code n / accuracy} of
 * the exact one. With accuracy 0 they are exact ({@code percentile}, linear interpolation, the
 * same definition as DuckDB's {@code quantile_cont}), at the cost of holding every distinct value
 * of a group in memory.
 */
public final class SparkDialect implements SqlDialect {
  private final int accuracy;

  /** @param accuracy {@code percentile_approx} accuracy, or 0 for exact percentiles */
  public SparkDialect(int accuracy) {
    if (accuracy < 0) {
      throw new IllegalArgumentException("accuracy must be 0 (exact) or positive");
    }
    this.accuracy = accuracy;
  }

  @Override
  public String literal(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  @Override
  public String identifier(String s) {
    return "`" + s.replace("`", "``") + "`";
  }

  @Override
  public String quantiles(String expr, double... q) {
    StringJoiner list = new StringJoiner(", ", "array(", ")");
    for (double v : q) {
      list.add(number(v));
    }
    return percentile(expr, list.toString());
  }

  @Override
  public String quantile(String expr, double q) {
    return percentile(expr, number(q));
  }

  private String percentile(String expr, String q) {
    return accuracy == 0 ? "percentile(" + expr + ", " + q + ")"
        : "percentile_approx(" + expr + ", " + q + ", " + accuracy + ")";
  }

  /** A fraction as a DOUBLE literal (a plain 0.5 would be a DECIMAL in Spark SQL). */
  private static String number(double v) {
    return String.format(Locale.ROOT, "CAST(%s AS DOUBLE)", Double.toString(v));
  }

  @Override
  public String percentileMethod() {
    return accuracy == 0 ? "exact (Spark percentile, linear interpolation)"
        : String.format(Locale.ROOT, "approximate (Spark percentile_approx, accuracy %d: a value"
            + " whose rank is within %s %% of the group's records of the exact one)", accuracy,
            new java.math.BigDecimal(100.0 / accuracy).round(new java.math.MathContext(3))
                .stripTrailingZeros().toPlainString());
  }

  @Override
  public String integerDivide(String dividend, String divisor) {
    return "((" + dividend + ") div (" + divisor + "))";
  }

  @Override
  public String sortedDistinctList(String expr) {
    return "array_join(array_sort(collect_set(" + expr + ")), ',')";
  }

  @Override
  public String pair(String first, String second) {
    return "struct(" + first + ", " + second + ")";
  }

  @Override
  public String powerOfTwo(String exponent) {
    return "shiftleft(CAST(1 AS BIGINT), CAST(" + exponent + " AS INT))";
  }

  /** Spark sums BIGINT into BIGINT (and fails on overflow): DECIMAL(38,0) holds the sum. */
  @Override
  public String wideSum(String expr) {
    return "sum(CAST(" + expr + " AS DECIMAL(38,0)))";
  }

  /** {@code from_json} with a DDL schema, in its default permissive mode. */
  @Override
  public String jsonStructArray(String jsonText, String key, List<JsonLayout.Field> fields) {
    StringJoiner element = new StringJoiner(", ", "STRUCT<", ">");
    for (JsonLayout.Field f : fields) {
      element.add(identifier(f.name()) + ": " + f.type().spark());
    }
    String schema = "STRUCT<" + identifier(key) + ": ARRAY<" + element + ">>";
    return "from_json(" + jsonText + ", " + literal(schema) + ")." + identifier(key);
  }

  @Override
  public String explode(String arrayExpr) {
    return "explode(" + arrayExpr + ")";
  }
}
