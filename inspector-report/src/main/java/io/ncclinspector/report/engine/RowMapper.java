package io.ncclinspector.report.engine;

import java.sql.SQLException;

/** Maps one result row. */
@FunctionalInterface
public interface RowMapper<T> {
  T map(SqlRow row) throws SQLException;
}
