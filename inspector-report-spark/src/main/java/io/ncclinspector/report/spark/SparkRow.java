package io.ncclinspector.report.spark;

import io.ncclinspector.report.engine.SqlRow;
import java.sql.SQLException;
import java.util.List;
import org.apache.spark.sql.Row;

/** A Spark result row as a {@link SqlRow}: arrays become Java lists. */
record SparkRow(Row row) implements SqlRow {
  @Override
  public Object getObject(String column) throws SQLException {
    return value(index(column));
  }

  @Override
  public Object getObject(int position) throws SQLException {
    if (position < 1 || position > row.length()) {
      throw new SQLException("no column " + position + " in a row of " + row.length());
    }
    return value(position - 1);
  }

  @Override
  public List<?> getList(String column) throws SQLException {
    int i = index(column);
    return row.isNullAt(i) ? null : row.getList(i);
  }

  private int index(String column) throws SQLException {
    try {
      return row.fieldIndex(column);
    } catch (IllegalArgumentException e) {
      throw new SQLException("no column '" + column + "' in " + row.schema().simpleString(), e);
    }
  }

  private Object value(int i) {
    if (row.isNullAt(i)) {
      return null;
    }
    Object v = row.get(i);
    return v instanceof scala.collection.Seq<?> ? row.getList(i) : v;
  }
}
