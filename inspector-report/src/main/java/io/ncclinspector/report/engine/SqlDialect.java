package io.ncclinspector.report.engine;

import io.ncclinspector.report.ingest.JsonLayout;
import java.util.List;

/**
 * The few pieces of SQL the report's engines spell differently. Every analysis is written once,
 * in SQL both engines accept, and calls these for the rest, so DuckDB and Spark cannot drift
 * apart: the grouping, the filters, the joins and the arithmetic are the same text.
 */
public interface SqlDialect {
  /** A string literal. */
  String literal(String s);

  /** A quoted identifier. */
  String identifier(String s);

  /**
   * The percentiles {@code q} of a numeric expression (a DOUBLE expression: integer inputs make
   * some engines return integers), as an array in the order given.
   */
  String quantiles(String expr, double... q);

  /** One percentile of a DOUBLE expression. */
  String quantile(String expr, double q);

  /** How {@link #quantiles} computes: for the report's method notes. */
  String percentileMethod();

  /** Integer division of two BIGINT expressions, truncating toward zero. */
  String integerDivide(String dividend, String divisor);

  /**
   * Integer division of a wide expression (of {@link #wideSum}'s type) by a BIGINT one,
   * truncating toward zero, as BIGINT: for a quotient known to fit in 64 bits.
   */
  default String wideDivide(String dividend, String divisor) {
    return "CAST(" + integerDivide(dividend, divisor) + " AS BIGINT)";
  }

  /** The distinct non-null values of a text expression, sorted and joined with a comma. */
  String sortedDistinctList(String expr);

  /**
   * A value that orders by the BIGINT {@code first}, then by the BIGINT {@code second}: for
   * {@code max_by} with a deterministic choice among ties.
   */
  String pair(String first, String second);

  /** 2 to the power of an integer expression from 0 to 62, as BIGINT. */
  String powerOfTwo(String exponent);

  /**
   * The exact sum of a BIGINT expression, in a type wide enough for billions of large values
   * (sums of message sizes overflow 64 bits).
   */
  String wideSum(String expr);

  /**
   * The array under the top-level key {@code key} of a JSON object held as text, each element a
   * struct of {@code fields}: null where the text or the key is missing. A value of another JSON
   * type than its field's is null (or, on Spark, may make the whole array null): the report's
   * line check does not look inside the trace objects.
   */
  String jsonStructArray(String jsonText, String key, List<JsonLayout.Field> fields);

  /**
   * A SELECT-list item (to be given an alias) that makes one row per element of an array
   * expression, and none for a null or empty array.
   */
  String explode(String arrayExpr);
}
