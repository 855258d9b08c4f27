package io.ncclinspector.report.analysis;

import io.ncclinspector.report.engine.SqlRow;
import java.sql.SQLException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Null-aware reading of result columns, whichever the engine. */
final class Rows {
  private Rows() {}

  static Long longOrNull(SqlRow r, String column) throws SQLException {
    Object v = r.getObject(column);
    return v == null ? null : ((Number) v).longValue();
  }

  static long longOr0(SqlRow r, String column) throws SQLException {
    Object v = r.getObject(column);
    return v == null ? 0 : ((Number) v).longValue();
  }

  static Double doubleOrNull(SqlRow r, String column) throws SQLException {
    Object v = r.getObject(column);
    return v == null ? null : ((Number) v).doubleValue();
  }

  static double doubleOrNaN(SqlRow r, String column) throws SQLException {
    Object v = r.getObject(column);
    return v == null ? Double.NaN : ((Number) v).doubleValue();
  }

  /** A list of numbers; missing elements are NaN. */
  static double[] doubles(SqlRow r, String column, int expected) throws SQLException {
    double[] out = new double[expected];
    java.util.Arrays.fill(out, Double.NaN);
    List<?> values = r.getList(column);
    if (values == null) {
      return out;
    }
    for (int i = 0; i < Math.min(expected, values.size()); i++) {
      if (values.get(i) != null) {
        out[i] = ((Number) values.get(i)).doubleValue();
      }
    }
    return out;
  }

  /** An insertion-ordered, unmodifiable copy. */
  static <K, V> Map<K, V> ordered(Map<K, V> m) {
    return Collections.unmodifiableMap(new LinkedHashMap<>(m));
  }
}
