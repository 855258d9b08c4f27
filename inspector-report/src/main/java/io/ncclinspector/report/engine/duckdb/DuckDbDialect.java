package io.ncclinspector.report.engine.duckdb;

import io.ncclinspector.report.engine.SqlDialect;
import io.ncclinspector.report.ingest.JsonLayout;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/** DuckDB's spelling of the {@link SqlDialect} pieces; percentiles are exact. */
public final class DuckDbDialect implements SqlDialect {
  public static final DuckDbDialect INSTANCE = new DuckDbDialect();

  private DuckDbDialect() {}

  @Override
  public String literal(String s) {
    return DuckDbEngine.literal(s);
  }

  @Override
  public String identifier(String s) {
    return DuckDbEngine.identifier(s);
  }

  @Override
  public String quantiles(String expr, double... q) {
    StringJoiner list = new StringJoiner(", ", "[", "]");
    for (double v : q) {
      list.add(Double.toString(v));
    }
    return "quantile_cont(" + expr + ", " + list + ")";
  }

  @Override
  public String quantile(String expr, double q) {
    return String.format(Locale.ROOT, "quantile_cont(%s, %s)", expr, Double.toString(q));
  }

  @Override
  public String percentileMethod() {
    return "exact (DuckDB quantile_cont, linear interpolation)";
  }

  @Override
  public String integerDivide(String dividend, String divisor) {
    return "((" + dividend + ") // (" + divisor + "))";
  }

  /**
   * A 128-bit division costs about 0.7 s over the 1.4 M collectives of 10 M records: a dividend
   * that fits in 64 bits, as sums of a few ranks' arrival times do, is divided in 64 bits
   * (DuckDB's CASE evaluates each branch only on its own rows; both truncate toward zero).
   */
  @Override
  public String wideDivide(String dividend, String divisor) {
    return "CASE WHEN (" + dividend + ") BETWEEN -9223372036854775808 AND 9223372036854775807"
        + " THEN CAST(" + dividend + " AS BIGINT) // (" + divisor + ") ELSE CAST(("
        + dividend + ") // (" + divisor + ") AS BIGINT) END";
  }

  @Override
  public String sortedDistinctList(String expr) {
    return "string_agg(DISTINCT " + expr + ", ',' ORDER BY " + expr + ")";
  }

  /** One 128-bit integer: DuckDB's arg_max is much faster on it than on a struct. */
  @Override
  public String pair(String first, String second) {
    return "(CAST(" + first + " AS HUGEINT) * 18446744073709551616 + (CAST(" + second
        + " AS HUGEINT) + 9223372036854775808))";
  }

  @Override
  public String powerOfTwo(String exponent) {
    return "(CAST(1 AS BIGINT) << CAST(" + exponent + " AS INTEGER))";
  }

  /** DuckDB sums BIGINT into HUGEINT. */
  @Override
  public String wideSum(String expr) {
    return "sum(" + expr + ")";
  }

  /**
   * {@code from_json} with a structure of JSON type names: lenient, a mismatch gives null. The
   * list is extracted first: converting only it is several times faster than the whole object.
   */
  @Override
  public String jsonStructArray(String jsonText, String key, List<JsonLayout.Field> fields) {
    StringJoiner element = new StringJoiner(",", "[{", "}]");
    for (JsonLayout.Field f : fields) {
      element.add("\"" + f.name() + "\":\"" + f.type().duckDb() + "\"");
    }
    return "from_json(json_extract(" + jsonText + ", " + literal("$.\"" + key + "\"") + "), "
        + literal(element.toString()) + ")";
  }

  @Override
  public String explode(String arrayExpr) {
    return "unnest(" + arrayExpr + ")";
  }
}
