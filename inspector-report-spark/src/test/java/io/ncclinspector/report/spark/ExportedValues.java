package io.ncclinspector.report.spark;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.engine.duckdb.EngineSettings;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The values behind a percentile, read from a report's Parquet files, and the check of Spark's
 * approximate percentiles against them: {@code percentile_approx(x, p, accuracy)} returns a value
 * of the data whose rank is within {@code n / accuracy} of the exact rank {@code p (n - 1)}.
 */
final class ExportedValues implements AutoCloseable {
  private final DuckDbEngine duck;

  ExportedValues(Path scratch) throws SQLException {
    duck = DuckDbEngine.open(new EngineSettings(1, null, scratch));
  }

  /** Sorted values per key: {@code SELECT key, value FROM source WHERE where}. */
  Map<String, double[]> sorted(String source, String key, String value, String where)
      throws SQLException {
    Map<String, List<Double>> lists = new HashMap<>();
    duck.query("SELECT CAST(" + key + " AS VARCHAR) AS k, CAST(" + value + " AS DOUBLE) AS v FROM "
        + source + " WHERE (" + where + ") AND " + value + " IS NOT NULL", r -> lists
            .computeIfAbsent(r.getString(1), k -> new ArrayList<>()).add(r.getDouble(2)));
    Map<String, double[]> out = new HashMap<>();
    lists.forEach((k, v) -> {
      double[] a = v.stream().mapToDouble(Double::doubleValue).toArray();
      Arrays.sort(a);
      out.put(k, a);
    });
    return out;
  }

  static String parquet(Path fileOrDir) {
    return "read_parquet(" + DuckDbEngine.literal(fileOrDir.toString()) + ")";
  }

  /**
   * Asserts that {@code value} is within the documented error of the {@code p} percentile of
   * {@code sorted}, and returns how many ranks it was off.
   */
  static double check(String what, double[] sorted, double p, Double value, int accuracy) {
    assertTrue(value != null && sorted != null && sorted.length > 0, what + ": " + value);
    int n = sorted.length;
    double exactRank = p * (n - 1);
    double allowed = (double) n / accuracy + 1; // + 1: the rank definitions differ by one
    int lo = Math.max(0, (int) Math.floor(exactRank - allowed));
    int hi = Math.min(n - 1, (int) Math.ceil(exactRank + allowed));
    double tolerance = Math.abs(value) * 1e-12;
    boolean inRange = value >= sorted[lo] - tolerance && value <= sorted[hi] + tolerance;
    boolean isDatum = Arrays.stream(sorted).anyMatch(x -> Math.abs(x - value) <= tolerance);
    assertTrue(inRange && isDatum, String.format("%s: %s is not a value of the data between"
        + " ranks %d and %d (%s .. %s) of %d", what, value, lo, hi, sorted[lo], sorted[hi], n));
    int rank = Arrays.binarySearch(sorted, value);
    return rank < 0 ? 0 : Math.abs(rank - exactRank);
  }

  @Override
  public void close() throws SQLException {
    duck.close();
  }
}
