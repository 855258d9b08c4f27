package io.ncclinspector.report.analysis;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Null-aware reading of DuckDB result columns. */
final class Rows {
  private Rows() {}

  static Long longOrNull(ResultSet r, String column) throws SQLException {
    Object v = r.getObject(column);
    return v == null ? null : ((Number) v).longValue();
  }

  static long longOr0(ResultSet r, String column) throws SQLException {
    Object v = r.getObject(column);
    return v == null ? 0 : ((Number) v).longValue();
  }

  static Integer intOrNull(ResultSet r, String column) throws SQLException {
    Object v = r.getObject(column);
    return v == null ? null : ((Number) v).intValue();
  }

  static Double doubleOrNull(ResultSet r, String column) throws SQLException {
    Object v = r.getObject(column);
    return v == null ? null : ((Number) v).doubleValue();
  }

  static double doubleOrNaN(ResultSet r, String column) throws SQLException {
    Object v = r.getObject(column);
    return v == null ? Double.NaN : ((Number) v).doubleValue();
  }

  /** A DuckDB list of numbers; missing elements are NaN. */
  static double[] doubles(ResultSet r, String column, int expected) throws SQLException {
    double[] out = new double[expected];
    java.util.Arrays.fill(out, Double.NaN);
    Array a = r.getArray(column);
    if (a == null) {
      return out;
    }
    Object[] values = (Object[]) a.getArray();
    for (int i = 0; i < Math.min(expected, values.length); i++) {
      if (values[i] != null) {
        out[i] = ((Number) values[i]).doubleValue();
      }
    }
    return out;
  }

  /** An insertion-ordered, unmodifiable copy. */
  static <K, V> Map<K, V> ordered(Map<K, V> m) {
    return Collections.unmodifiableMap(new LinkedHashMap<>(m));
  }
}
