package io.ncclinspector.report.analysis;

import io.ncclinspector.report.engine.SqlEngine;
import io.ncclinspector.report.model.Exclusion;
import java.sql.SQLException;

/**
 * The records' table of counts: the records grouped by every key that the overview's, the
 * ranks', the communicators' and the network breakdown's counts tell apart (communicator, rank,
 * host, process, kind, operation, exclusion, producer, timing source, class), with the sums
 * and extremes those need. A job's records fall in a few thousand groups, so that one scan of
 * the records serves what took five; the quantiles, which cannot be summed, still read the
 * records.
 *
 * <p>Columns: the keys; {@code comm_name} (any of the group's), {@code n_ranks} and {@code
 * nnodes} (the largest), {@code n} (records), {@code bytes} (the sum of message sizes, wide),
 * {@code first_us} and {@code last_us} (the plausible dump timestamps' extremes), {@code
 * gpu_start} (records with a GPU start) and {@code net} (records with a network breakdown).
 * Whether a breakdown is plausible is not asked here: its check reads six columns of every
 * record, a third of the grouping's time, for the few jobs that have a breakdown at all.
 */
public final class RecordGroups {
  /** The table's name. */
  private static final String TABLE = "record_groups";
  /** Dump timestamps that can be shown as dates and subtracted (see {@link Exclusion}). */
  private static final String PLAUSIBLE_DUMP = "dump_timestamp_us BETWEEN 0 AND "
      + Exclusion.MAX_PLAUSIBLE_TIMESTAMP_NS / 1000;

  private RecordGroups() {}

  /** Makes the table from the engine's {@code records}; the queries over it may then run. */
  public static RecordGroups create(SqlEngine engine) throws SQLException {
    String keys = "comm_id, rank, hostname, pid, kind, op, excluded_reason, producer,"
        + " timing_source, comm_type";
    // Per key, not per record: an engine may keep it on its driver (Spark does).
    engine.createSmallTable(TABLE, "SELECT " + keys + ", any_value(comm_name) AS comm_name,"
        + " max(n_ranks) AS n_ranks, max(nnodes) AS nnodes, count(*) AS n,"
        + " " + engine.dialect().wideSum("msg_size_bytes") + " AS bytes,"
        + " min(dump_timestamp_us) FILTER (WHERE " + PLAUSIBLE_DUMP + ") AS first_us,"
        + " max(dump_timestamp_us) FILTER (WHERE " + PLAUSIBLE_DUMP + ") AS last_us,"
        + " count(*) FILTER (WHERE gpu_start_ns IS NOT NULL) AS gpu_start,"
        + " count(*) FILTER (WHERE net_proxy_ops IS NOT NULL) AS net"
        + " FROM records GROUP BY " + keys);
    return new RecordGroups();
  }

  /** The table's name, for queries over it. */
  public String table() {
    return TABLE;
  }

  /**
   * The sum of a count column where {@code where} holds (null: everywhere), as a BIGINT, 0 when
   * no group counts.
   */
  static String count(String column, String where) {
    return "CAST(coalesce(sum(" + column + ")" + (where == null ? "" : " FILTER (WHERE " + where
        + ")") + ", 0) AS BIGINT)";
  }
}
