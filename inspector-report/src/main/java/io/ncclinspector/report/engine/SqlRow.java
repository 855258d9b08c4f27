package io.ncclinspector.report.engine;

import java.sql.SQLException;
import java.util.List;

/**
 * One result row, whichever engine produced it. Columns are addressed by name or by position
 * (from 1, as in JDBC). Like JDBC, the primitive getters return 0 or false for SQL NULL; {@link
 * #getObject} tells NULL apart.
 */
public interface SqlRow {
  /** The value as the engine's Java type (a {@link Number}, String, Boolean, List), or null. */
  Object getObject(String column) throws SQLException;

  Object getObject(int position) throws SQLException;

  /** An array or list column as a Java list (null for NULL). */
  List<?> getList(String column) throws SQLException;

  default String getString(String column) throws SQLException {
    Object v = getObject(column);
    return v == null ? null : v.toString();
  }

  default String getString(int position) throws SQLException {
    Object v = getObject(position);
    return v == null ? null : v.toString();
  }

  default long getLong(String column) throws SQLException {
    return number(getObject(column), column).longValue();
  }

  default long getLong(int position) throws SQLException {
    return number(getObject(position), position).longValue();
  }

  default int getInt(String column) throws SQLException {
    return number(getObject(column), column).intValue();
  }

  default int getInt(int position) throws SQLException {
    return number(getObject(position), position).intValue();
  }

  default double getDouble(String column) throws SQLException {
    return number(getObject(column), column).doubleValue();
  }

  default double getDouble(int position) throws SQLException {
    return number(getObject(position), position).doubleValue();
  }

  /** A numeric column as an exact decimal (null for NULL). */
  default java.math.BigDecimal getBigDecimal(int position) throws SQLException {
    Object v = getObject(position);
    if (v == null || v instanceof java.math.BigDecimal) {
      return (java.math.BigDecimal) v;
    }
    return new java.math.BigDecimal(number(v, position).toString());
  }

  default boolean getBoolean(String column) throws SQLException {
    Object v = getObject(column);
    if (v == null) {
      return false;
    }
    if (v instanceof Boolean b) {
      return b;
    }
    throw new SQLException("column " + column + " is not a boolean: " + v);
  }

  private static Number number(Object v, Object column) throws SQLException {
    if (v == null) {
      return 0;
    }
    if (v instanceof Number n) {
      return n;
    }
    throw new SQLException("column " + column + " is not a number: " + v);
  }
}
