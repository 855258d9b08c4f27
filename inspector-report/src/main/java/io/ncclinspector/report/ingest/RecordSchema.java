package io.ncclinspector.report.ingest;

import io.ncclinspector.report.analysis.CommType;
import io.ncclinspector.report.analysis.Exclusion;
import java.util.List;
import java.util.StringJoiner;

/**
 * The flat record schema of the Parquet export, and the SQL that builds it from a JSON reader's
 * view of the lines ({@link JsonLayout}). Both producers' records map onto it: fields one
 * producer does not write are null. The SQL is the same text for every engine: each engine's
 * reader only supplies the four parsed objects and the file name. {@code
 * inspector-report/README.md} documents every column; a test keeps the two in step.
 */
public final class RecordSchema {
  private RecordSchema() {}

  /** One column of the export. */
  public record Column(String name, String type, String description) {}

  /** The export's columns, in order. */
  public static final List<Column> COLUMNS = List.of(
      new Column("source_file", "VARCHAR", "file the record was read from, as the report names it"),
      new Column("producer", "VARCHAR", "`nccl-inspector-jvm` (this project: the record has "
          + "`profiler_interface_version` or a `*_exec_time_ns` field) or `nccl-inspector` "
          + "(the reference)"),
      new Column("comm_id", "VARCHAR", "`header.id` as written (16 hex digits here, 14 in the "
          + "reference)"),
      new Column("comm_name", "VARCHAR", "`header.comm_name`"),
      new Column("rank", "INTEGER", "`header.rank`"),
      new Column("n_ranks", "INTEGER", "`header.n_ranks`"),
      new Column("nnodes", "INTEGER", "`header.nnodes`"),
      new Column("comm_type", "VARCHAR", "`single-rank`, `nvlink-only`, `hca-only`, `mixed` "
          + "(the reference exporter's rules), or `unknown` (rank or node count below 1)"),
      new Column("kind", "VARCHAR", "`coll` or `p2p`"),
      new Column("op", "VARCHAR", "operation: `coll` or `p2p` (AllReduce, Send, ...)"),
      new Column("sn", "BIGINT", "`coll_sn` / `p2p_sn`"),
      new Column("peer", "INTEGER", "`p2p_peer` (P2P only)"),
      new Column("msg_size_bytes", "BIGINT", "message size; null when implausible (negative or "
          + "above 2^50, e.g. the reference's near-2^64 uint8 sizes)"),
      new Column("msg_size_raw", "DECIMAL(38,0)", "message size exactly as written"),
      new Column("exec_time_us", "BIGINT", "`*_exec_time_us` (whole microseconds)"),
      new Column("exec_time_ns", "BIGINT", "`*_exec_time_ns` (this project only)"),
      new Column("exec_us", "DOUBLE", "execution time in microseconds used by the report: "
          + "`exec_time_ns / 1000` when present, else `exec_time_us`"),
      new Column("timing_source", "VARCHAR", "`kernel_gpu`, `kernel_cpu`, `collective_cpu`, "
          + "`ce_cpu`"),
      new Column("algobw_gbs", "DOUBLE", "algorithm bandwidth as written (GB/s)"),
      new Column("busbw_gbs", "DOUBLE", "bus bandwidth as written (GB/s)"),
      new Column("algo", "VARCHAR", "`coll_algo`"),
      new Column("proto", "VARCHAR", "`coll_proto`"),
      new Column("datatype", "VARCHAR", "`*_datatype`"),
      new Column("element_count", "BIGINT", "`*_count`"),
      new Column("root", "INTEGER", "`coll_root`"),
      new Column("nchannels", "INTEGER", "`*_nchannels`"),
      new Column("channels_seen", "INTEGER", "`*_channels_seen`"),
      new Column("nwarps", "INTEGER", "`coll_nwarps`"),
      new Column("gpu_start_ns", "BIGINT", "`*_gpu_start_ns`: earliest channel GPU start "
          + "(GPU global timer, ns); the straggler analysis lines ranks up on it"),
      new Column("gpu_span_ns", "BIGINT", "`*_gpu_span_ns`"),
      new Column("gpu_skew_ns", "BIGINT", "`*_gpu_skew_ns`"),
      new Column("step", "BIGINT", "`*_step` tag"),
      new Column("phase", "VARCHAR", "`*_phase` tag"),
      new Column("flags", "VARCHAR[]", "`*_flags`"),
      new Column("quarantine_reason", "VARCHAR", "`*_quarantine_reason`"),
      new Column("excluded_reason", "VARCHAR", "why the report's performance figures leave the "
          + "record out (null: used): `invalid_size`, `invalid_time`, `quarantined`, "
          + "`cpu_timing` (used with `--all-timing`)"),
      new Column("format_version", "VARCHAR", "`metadata.inspector_output_format_version`"),
      new Column("git_rev", "VARCHAR", "`metadata.git_rev`"),
      new Column("rec_mechanism", "VARCHAR", "`metadata.rec_mechanism`"),
      new Column("dump_timestamp_us", "BIGINT", "`metadata.dump_timestamp_us` (wall clock, µs)"),
      new Column("hostname", "VARCHAR", "`metadata.hostname`"),
      new Column("pid", "BIGINT", "`metadata.pid`"),
      new Column("profiler_interface_version", "INTEGER",
          "`metadata.profiler_interface_version` (this project only)"),
      new Column("event_trace_sn", "VARCHAR", "verbose `event_trace_sn` object, as JSON text"),
      new Column("event_trace_ts", "VARCHAR", "verbose `event_trace_ts` object, as JSON text"));

  /**
   * Raw fields flattened out of the JSON structs, under r_ names.
   *
   * @param fileColumn the column that names the line's file
   */
  public static String raw(String fileColumn) {
    return String.join(",\n  ", fileColumn + " AS r_file", RAW);
  }

  private static final String RAW = String.join(",\n  ",
      "header.id AS r_id", "header.comm_name AS r_comm_name", "header.rank AS r_rank",
      "header.n_ranks AS r_n_ranks", "header.nnodes AS r_nnodes",
      "metadata.inspector_output_format_version AS r_format_version",
      "metadata.git_rev AS r_git_rev", "metadata.rec_mechanism AS r_rec_mechanism",
      "metadata.dump_timestamp_us AS r_dump_timestamp_us", "metadata.hostname AS r_hostname",
      "metadata.pid AS r_pid", "metadata.profiler_interface_version AS r_piv",
      "coll_perf IS NOT NULL AS r_is_coll", "p2p_perf IS NOT NULL AS r_is_p2p",
      either("coll", "p2p", "op"),
      either("coll_sn", "p2p_sn", "sn"),
      "p2p_perf.p2p_peer AS r_peer",
      either("coll_msg_size_bytes", "p2p_msg_size_bytes", "msg"),
      either("coll_exec_time_us", "p2p_exec_time_us", "exec_time_us"),
      either("coll_exec_time_ns", "p2p_exec_time_ns", "exec_time_ns"),
      either("coll_timing_source", "p2p_timing_source", "timing_source"),
      either("coll_algobw_gbs", "p2p_algobw_gbs", "algobw"),
      either("coll_busbw_gbs", "p2p_busbw_gbs", "busbw"),
      "coll_perf.coll_algo AS r_algo", "coll_perf.coll_proto AS r_proto",
      either("coll_datatype", "p2p_datatype", "datatype"),
      either("coll_count", "p2p_count", "count"),
      "coll_perf.coll_root AS r_root",
      either("coll_nchannels", "p2p_nchannels", "nchannels"),
      either("coll_channels_seen", "p2p_channels_seen", "channels_seen"),
      "coll_perf.coll_nwarps AS r_nwarps",
      either("coll_gpu_start_ns", "p2p_gpu_start_ns", "gpu_start_ns"),
      either("coll_gpu_span_ns", "p2p_gpu_span_ns", "gpu_span_ns"),
      either("coll_gpu_skew_ns", "p2p_gpu_skew_ns", "gpu_skew_ns"),
      either("coll_step", "p2p_step", "step"),
      either("coll_phase", "p2p_phase", "phase"),
      either("coll_flags", "p2p_flags", "flags"),
      either("coll_quarantine_reason", "p2p_quarantine_reason", "quarantine_reason"),
      "CAST(coalesce(coll_perf.event_trace_sn, p2p_perf.event_trace_sn) AS STRING)"
          + " AS r_event_trace_sn",
      "CAST(coalesce(coll_perf.event_trace_ts, p2p_perf.event_trace_ts) AS STRING)"
          + " AS r_event_trace_ts");

  private static String either(String coll, String p2p, String name) {
    return "coalesce(coll_perf." + coll + ", p2p_perf." + p2p + ") AS r_" + name;
  }

  /**
   * Whether a row is a usable record: the same rules as {@code LineCheck}. Rows the JSON reader
   * could not parse at all arrive with every field null and fail here too.
   */
  public static final String VALIDITY = "(r_id IS NOT NULL AND r_rank IS NOT NULL"
      + " AND r_n_ranks IS NOT NULL AND r_nnodes IS NOT NULL AND r_is_coll <> r_is_p2p"
      + " AND r_op IS NOT NULL AND r_sn IS NOT NULL AND r_msg IS NOT NULL"
      + " AND r_exec_time_us IS NOT NULL AND r_timing_source IS NOT NULL)";

  private static final String PLAUSIBLE_SIZE = "(r_msg >= 0 AND r_msg <= "
      + Exclusion.MAX_PLAUSIBLE_MESSAGE_BYTES + ")";

  /** The export's columns computed from the raw ones; {@code fileName} maps r_file. */
  public static String finalColumns(String fileName) {
    StringJoiner j = new StringJoiner(",\n  ");
    j.add(fileName + " AS source_file");
    j.add("CASE WHEN r_piv IS NOT NULL OR r_exec_time_ns IS NOT NULL"
        + " THEN 'nccl-inspector-jvm' ELSE 'nccl-inspector' END AS producer");
    j.add("r_id AS comm_id");
    j.add("r_comm_name AS comm_name");
    j.add("r_rank AS rank");
    j.add("r_n_ranks AS n_ranks");
    j.add("r_nnodes AS nnodes");
    j.add(CommType.sql("r_n_ranks", "r_nnodes") + " AS comm_type");
    j.add("CASE WHEN r_is_coll THEN 'coll' ELSE 'p2p' END AS kind");
    j.add("r_op AS op");
    j.add("r_sn AS sn");
    j.add("r_peer AS peer");
    j.add("CASE WHEN " + PLAUSIBLE_SIZE + " THEN CAST(r_msg AS BIGINT) END AS msg_size_bytes");
    j.add("TRY_CAST(r_msg AS DECIMAL(38,0)) AS msg_size_raw");
    j.add("r_exec_time_us AS exec_time_us");
    j.add("r_exec_time_ns AS exec_time_ns");
    j.add("coalesce(CAST(r_exec_time_ns AS DOUBLE) / 1000, CAST(r_exec_time_us AS DOUBLE))"
        + " AS exec_us");
    j.add("r_timing_source AS timing_source");
    j.add("r_algobw AS algobw_gbs");
    j.add("r_busbw AS busbw_gbs");
    j.add("r_algo AS algo");
    j.add("r_proto AS proto");
    j.add("r_datatype AS datatype");
    j.add("r_count AS element_count");
    j.add("r_root AS root");
    j.add("r_nchannels AS nchannels");
    j.add("r_channels_seen AS channels_seen");
    j.add("r_nwarps AS nwarps");
    j.add("r_gpu_start_ns AS gpu_start_ns");
    j.add("r_gpu_span_ns AS gpu_span_ns");
    j.add("r_gpu_skew_ns AS gpu_skew_ns");
    j.add("r_step AS step");
    j.add("r_phase AS phase");
    j.add("r_flags AS flags");
    j.add("r_quarantine_reason AS quarantine_reason");
    j.add("CASE WHEN NOT " + PLAUSIBLE_SIZE + " THEN '" + Exclusion.INVALID_SIZE.label() + "'"
        + " WHEN r_exec_time_us < 0 OR r_exec_time_ns < 0 THEN '"
        + Exclusion.INVALID_TIME.label() + "'"
        + " WHEN r_quarantine_reason IS NOT NULL OR array_contains(r_flags, 'quarantined') THEN '"
        + Exclusion.QUARANTINED.label() + "'"
        + " WHEN r_timing_source <> 'kernel_gpu' THEN '" + Exclusion.CPU_TIMING.label() + "'"
        + " END AS excluded_reason");
    j.add("r_format_version AS format_version");
    j.add("r_git_rev AS git_rev");
    j.add("r_rec_mechanism AS rec_mechanism");
    j.add("r_dump_timestamp_us AS dump_timestamp_us");
    j.add("r_hostname AS hostname");
    j.add("r_pid AS pid");
    j.add("r_piv AS profiler_interface_version");
    j.add("r_event_trace_sn AS event_trace_sn");
    j.add("r_event_trace_ts AS event_trace_ts");
    return j.toString();
  }
}
