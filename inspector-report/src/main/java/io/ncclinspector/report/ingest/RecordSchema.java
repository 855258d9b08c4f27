package io.ncclinspector.report.ingest;

import io.ncclinspector.format.HeaderField;
import io.ncclinspector.format.MetadataField;
import io.ncclinspector.format.PerfField;
import io.ncclinspector.format.RecordField;
import io.ncclinspector.format.RecordKind;
import io.ncclinspector.report.model.CommType;
import io.ncclinspector.report.model.Exclusion;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The flat record schema of the Parquet export, and the SQL that builds it from a JSON reader's
 * view of the lines ({@link JsonLayout}). Both producers' records map onto it: fields one
 * producer does not write are null. The SQL is the same text for every engine: each engine's
 * reader only supplies the four parsed objects and the file name. {@code
 * inspector-report/README.md} documents every column; a test keeps the two in step.
 *
 * <p>A column either holds one field of the record format ({@code io.ncclinspector.format}) as
 * written, of whichever kind of record has it ({@link Column#source}), or is computed from such
 * columns. The raw projection ({@link #raw}) reads every sourced column's field by its format
 * name, under the name {@code r_<column>}.
 */
public final class RecordSchema {
  private RecordSchema() {}

  /**
   * One column of the export.
   *
   * @param source the format field the column holds as written (from the perf object of either
   *     kind where both have it); null for a computed column
   * @param sql the column's SQL over the raw {@code r_} columns; null: {@code r_<name>}
   */
  public record Column(String name, String type, String description, RecordField source, String sql) {
    /** The format field the column holds as written, if it holds one. */
    public Optional<RecordField> field() {
      return Optional.ofNullable(source);
    }
  }

  private static Column field(String name, String type, RecordField source, String description) {
    return new Column(name, type, description, source, null);
  }

  private static Column computed(String name, String type, String sql, String description) {
    return new Column(name, type, description, null, sql);
  }

  private static final String PLAUSIBLE_SIZE = "(r_msg_size_raw >= 0 AND r_msg_size_raw <= "
      + Exclusion.MAX_PLAUSIBLE_MESSAGE_BYTES + ")";
  /** Replaced by the engine's file-name expression in {@link #finalColumns}. */
  private static final String FILE = "{file}";

  private static final String PRODUCER_OURS = "nccl-inspector-jvm";
  private static final String PRODUCER_REFERENCE = "nccl-inspector";
  private static final String KIND_COLL = "coll";
  private static final String KIND_P2P = "p2p";

  /**
   * The computed text columns whose every value the import's SQL spells out, each with those
   * values (the file name, known per batch, is the import's to add).
   */
  public static final Map<String, List<String>> CLOSED_TEXT = Map.of(
      "producer", List.of(PRODUCER_OURS, PRODUCER_REFERENCE),
      "comm_type", Stream.of(CommType.values()).map(CommType::label).toList(),
      "kind", List.of(KIND_COLL, KIND_P2P),
      "excluded_reason", Stream.of(Exclusion.values()).map(Exclusion::label).toList());

  /** The export's columns, in order. */
  public static final List<Column> COLUMNS = List.of(
      computed("source_file", "VARCHAR", FILE,
          "file the record was read from, as the report names it"),
      computed("producer", "VARCHAR", "CASE WHEN r_profiler_interface_version IS NOT NULL"
          + " OR r_exec_time_ns IS NOT NULL THEN '" + PRODUCER_OURS + "' ELSE '"
          + PRODUCER_REFERENCE + "' END",
          "`nccl-inspector-jvm` (this project: the record has "
          + "`profiler_interface_version` or a `*_exec_time_ns` field) or `nccl-inspector` "
          + "(the reference)"),
      field("comm_id", "VARCHAR", HeaderField.ID, "`header.id` as written (16 hex digits here, 14 in "
          + "the reference)"),
      field("comm_name", "VARCHAR", HeaderField.COMM_NAME, "`header.comm_name`"),
      field("rank", "INTEGER", HeaderField.RANK, "`header.rank`"),
      field("n_ranks", "INTEGER", HeaderField.N_RANKS, "`header.n_ranks`"),
      field("nnodes", "INTEGER", HeaderField.NNODES, "`header.nnodes`"),
      computed("comm_type", "VARCHAR", CommType.sql("r_n_ranks", "r_nnodes"),
          "`single-rank`, `nvlink-only`, `hca-only`, `mixed` "
          + "(the reference exporter's rules), or `unknown` (rank or node count below 1)"),
      computed("kind", "VARCHAR", "CASE WHEN r_is_coll THEN '" + KIND_COLL + "' ELSE '"
          + KIND_P2P + "' END",
          "`coll` or `p2p`"),
      field("op", "VARCHAR", PerfField.OPERATION, "operation: `coll` or `p2p` (AllReduce, Send, ...)"),
      field("sn", "BIGINT", PerfField.SEQUENCE, "`coll_sn` / `p2p_sn`"),
      field("peer", "INTEGER", PerfField.PEER, "`p2p_peer` (P2P only)"),
      computed("msg_size_bytes", "BIGINT", "CASE WHEN " + PLAUSIBLE_SIZE
          + " THEN CAST(r_msg_size_raw AS BIGINT) END",
          "message size; null when implausible (negative or "
          + "above 2^50, e.g. the reference's near-2^64 uint8 sizes)"),
      new Column("msg_size_raw", "DECIMAL(38,0)", "message size exactly as written",
          PerfField.MESSAGE_BYTES, "TRY_CAST(r_msg_size_raw AS DECIMAL(38,0))"),
      field("exec_time_us", "BIGINT", PerfField.EXEC_TIME_US, "`*_exec_time_us` (whole microseconds)"),
      field("exec_time_ns", "BIGINT", PerfField.EXEC_TIME_NS, "`*_exec_time_ns` (this project only)"),
      computed("exec_us", "DOUBLE", "coalesce(CAST(r_exec_time_ns AS DOUBLE) / 1000,"
          + " CAST(r_exec_time_us AS DOUBLE))", "execution time in microseconds used by the report: "
          + "`exec_time_ns / 1000` when present, else `exec_time_us`"),
      field("timing_source", "VARCHAR", PerfField.TIMING_SOURCE, "`kernel_gpu`, `kernel_cupti`, "
          + "`kernel_cupti_group`, `kernel_cpu`, `collective_cpu`, `ce_cpu`"),
      field("algobw_gbs", "DOUBLE", PerfField.ALGORITHM_BANDWIDTH, "algorithm bandwidth as written (GB/s)"),
      field("busbw_gbs", "DOUBLE", PerfField.BUS_BANDWIDTH, "bus bandwidth as written (GB/s)"),
      field("algo", "VARCHAR", PerfField.ALGORITHM, "`coll_algo`"),
      field("proto", "VARCHAR", PerfField.PROTOCOL, "`coll_proto`"),
      field("datatype", "VARCHAR", PerfField.DATATYPE, "`*_datatype`"),
      field("element_count", "BIGINT", PerfField.COUNT, "`*_count`"),
      field("root", "INTEGER", PerfField.ROOT, "`coll_root`"),
      field("nchannels", "INTEGER", PerfField.NCHANNELS, "`*_nchannels`"),
      field("channels_seen", "INTEGER", PerfField.CHANNELS_SEEN, "`*_channels_seen`"),
      field("nwarps", "INTEGER", PerfField.NWARPS, "`coll_nwarps`"),
      field("gpu_start_ns", "BIGINT", PerfField.GPU_START_NS, "`*_gpu_start_ns`: earliest channel GPU "
          + "start (GPU global timer, ns); the straggler analysis lines ranks up on it"),
      field("gpu_span_ns", "BIGINT", PerfField.GPU_SPAN_NS, "`*_gpu_span_ns`"),
      field("gpu_skew_ns", "BIGINT", PerfField.GPU_SKEW_NS, "`*_gpu_skew_ns`"),
      field("step", "BIGINT", PerfField.STEP, "`*_step` tag"),
      field("phase", "VARCHAR", PerfField.PHASE, "`*_phase` tag"),
      field("flags", "VARCHAR[]", PerfField.FLAGS, "`*_flags`"),
      field("quarantine_reason", "VARCHAR", PerfField.QUARANTINE_REASON, "`*_quarantine_reason`"),
      field("untimed_reason", "VARCHAR", PerfField.UNTIMED_REASON, "`*_untimed_reason`: why an operation "
          + "that ran has no time (`nccl_broadcast_allgatherv`, `nccl_no_operation_event`; this project only)"),
      field("api_sn", "BIGINT", PerfField.API_SN, "`coll_api_sn`: the application's call, its number "
          + "among the communicator's collective calls (this project only)"),
      computed("excluded_reason", "VARCHAR", Exclusion.sql(), "why the report's performance "
          + "figures leave the record out (null: used), the first that applies: "
          + "`invalid_identity` (a negative rank, rank count, node count, peer, sequence number or "
          + "pid; a rank or peer past the rank count), `invalid_time` (an execution time, GPU span "
          + "or skew below 0 or over a day; a GPU start or dump timestamp below 0 or past 2^62 ns), "
          + "`invalid_size`, `invalid_bandwidth` (below 0 or above 100 TB/s), `quarantined`, "
          + "`untimed` (timing source `none`: a call NCCL gave no event), `group_time` (timing source "
          + "`kernel_cupti_group`: a point-to-point operation timed by its group's kernel; also kept out of "
          + "the point-to-point analysis), `cpu_timing` (used with `--all-timing`); the first two, "
          + "`quarantined` and `untimed` also keep the record out of the straggler and point-to-point analyses"),
      field("format_version", "VARCHAR", MetadataField.FORMAT_VERSION,
          "`metadata.inspector_output_format_version`"),
      field("git_rev", "VARCHAR", MetadataField.GIT_REV, "`metadata.git_rev`"),
      field("rec_mechanism", "VARCHAR", MetadataField.REC_MECHANISM, "`metadata.rec_mechanism`"),
      field("dump_timestamp_us", "BIGINT", MetadataField.DUMP_TIMESTAMP_US,
          "`metadata.dump_timestamp_us` (wall clock, µs)"),
      field("hostname", "VARCHAR", MetadataField.HOSTNAME, "`metadata.hostname`"),
      field("pid", "BIGINT", MetadataField.PID, "`metadata.pid`"),
      field("profiler_interface_version", "INTEGER", MetadataField.PROFILER_INTERFACE_VERSION,
          "`metadata.profiler_interface_version` (this project only)"),
      field("nccl_version", "VARCHAR", MetadataField.NCCL_VERSION,
          "`metadata.nccl_version`: the NCCL release (this project only)"),
      field("event_trace_sn", "VARCHAR", PerfField.EVENT_TRACE_SN,
          "verbose `event_trace_sn` object, as JSON text"),
      field("event_trace_ts", "VARCHAR", PerfField.EVENT_TRACE_TS,
          "verbose `event_trace_ts` object, as JSON text"),
      field("channels_desynced", "INTEGER", PerfField.CHANNELS_DESYNCED,
          "`*_channels_desynced`: kernel channels whose GPU times were left out (this project only)"),
      field("bw_is_upper_bound", "BOOLEAN", PerfField.BW_IS_UPPER_BOUND,
          "`*_bw_is_upper_bound`: the time is a lower bound and the bandwidths upper bounds (a P2P "
          + "time that ends at the send side, a collective timed from its in-step channels only; this "
          + "project only)"),
      field("time_recovery", "VARCHAR", PerfField.TIME_RECOVERY, "`*_time_recovery`: how the GPU time was "
          + "obtained: `direct`, `recovered` (channels handed on by a later operation), `withheld` (this project only)"),
      field("channels_recovered", "INTEGER", PerfField.CHANNELS_RECOVERED, "`*_channels_recovered`: kernel "
          + "channels timed by timestamps a later operation handed on (this project only)"),
      field("withheld_reason", "VARCHAR", PerfField.WITHHELD_REASON, "`*_withheld_reason`: why channels "
          + "were left out (`slot_reused`, `never_delivered`, ...; this project only)"),
      field("max_channel_lag", "INTEGER", PerfField.MAX_CHANNEL_LAG, "`*_max_channel_lag`: with `recovered`, "
          + "the most work items without a host count ahead of its own on one channel (this project only)"),
      field("recovery_off_reason", "VARCHAR", PerfField.RECOVERY_OFF_REASON, "`*_recovery_off_reason`: why "
          + "channel recovery was off for its communicator (this project only)"),
      field("net_bytes_sent", "BIGINT", PerfField.NET_BYTES_SENT, "`*_net_bytes_sent`: network breakdown "
          + "(proxy events, network transports only; this project only): bytes sent"),
      field("net_bytes_recv", "BIGINT", PerfField.NET_BYTES_RECV, "`*_net_bytes_recv`: bytes received"),
      field("net_time_ns", "BIGINT", PerfField.NET_TIME_NS, "`*_net_time_ns`: first chunk posted to last "
          + "proxy operation done"),
      field("net_send_gpu_wait_ns", "BIGINT", PerfField.NET_SEND_GPU_WAIT_NS, "`*_net_send_gpu_wait_ns`: "
          + "longest wait of a send for the own GPU's first chunk"),
      field("net_recv_wait_ns", "BIGINT", PerfField.NET_RECV_WAIT_NS, "`*_net_recv_wait_ns`: longest wait "
          + "of a receive for a peer's first chunk"),
      field("net_slowest_peer", "INTEGER", PerfField.NET_SLOWEST_PEER, "`*_net_slowest_peer`: the peer of "
          + "that longest receive wait"),
      field("net_slowest_channel", "INTEGER", PerfField.NET_SLOWEST_CHANNEL, "`*_net_slowest_channel`"),
      field("net_last_arrival_ts", "BIGINT", PerfField.NET_LAST_ARRIVAL_TS, "`*_net_last_arrival_ts`: "
          + "wall-clock µs of the last chunk received"),
      field("net_proxy_ops", "INTEGER", PerfField.NET_PROXY_OPS, "`*_net_proxy_ops`: proxy operations "
          + "NCCL reported"),
      field("net_send_peer_wait_ns", "BIGINT", PerfField.NET_SEND_PEER_WAIT_NS, "`*_net_send_peer_wait_ns`: "
          + "sends' wait for the peer's credit (SendPeerWait to SendWait), summed over the steps; NULL where "
          + "NCCL has no SendPeerWait (profiler interface before v4) or without sends"),
      field("net_send_peer_wait_max_ns", "BIGINT", PerfField.NET_SEND_PEER_WAIT_MAX_NS,
          "`*_net_send_peer_wait_max_ns`: the longest of one step"),
      field("net_send_peer_wait_peer", "INTEGER", PerfField.NET_SEND_PEER_WAIT_PEER,
          "`*_net_send_peer_wait_peer`: the peer of that longest wait for credit"),
      field("net_recv_flush_ns", "BIGINT", PerfField.NET_RECV_FLUSH_NS, "`*_net_recv_flush_ns`: receives' "
          + "flush (RecvFlushWait to RecvGPUWait), summed over the steps"),
      field("net_recv_flush_max_ns", "BIGINT", PerfField.NET_RECV_FLUSH_MAX_NS,
          "`*_net_recv_flush_max_ns`: the longest flush of one step"),
      field("net_proxy_lag_ns", "BIGINT", PerfField.NET_PROXY_LAG_NS, "`*_net_proxy_lag_ns`: every step's "
          + "start to its posted state, summed: the proxy thread's own time"),
      field("net_proxy_lag_max_ns", "BIGINT", PerfField.NET_PROXY_LAG_MAX_NS,
          "`*_net_proxy_lag_max_ns`: the longest of one step"));

  /**
   * Which of {@link #COLUMNS} an export holds: the analyses read only the {@link ColumnSet#CORE}
   * columns, and the import reads only the fields those need where it can ({@link
   * JsonLayout.Reading#TYPED}): the core export takes about a quarter less work to write than all
   * the columns.
   */
  public enum ColumnSet {
    /**
     * The columns the report's analyses read, the tags and NCCL's choices a user groups by, and
     * the labels that say how far a time can be trusted (quarantine, untimed, upper bound,
     * recovery, withheld).
     */
    CORE,
    /** Every column: also the verbose, recovery, metadata and detailed network fields. */
    ALL;

    /** The set's columns, in the export's order. */
    public List<Column> columns() {
      return this == ALL ? COLUMNS : CORE_COLUMNS;
    }

    /** The set's name on the command line. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The names of the {@link ColumnSet#CORE} columns. */
  private static final Set<String> CORE_NAMES = Set.of("source_file", "producer", "comm_id",
      "comm_name", "rank", "n_ranks", "nnodes", "comm_type", "kind", "op", "sn", "peer",
      "msg_size_bytes", "exec_us", "timing_source", "algobw_gbs", "busbw_gbs", "algo", "proto",
      "datatype", "root", "gpu_start_ns", "gpu_span_ns", "step", "phase", "quarantine_reason",
      "untimed_reason", "bw_is_upper_bound", "time_recovery", "withheld_reason", "excluded_reason",
      "dump_timestamp_us", "hostname", "pid", "event_trace_ts", "net_bytes_sent",
      "net_bytes_recv", "net_time_ns", "net_send_gpu_wait_ns", "net_recv_wait_ns",
      "net_slowest_peer", "net_proxy_ops");

  private static final List<Column> CORE_COLUMNS = COLUMNS.stream()
      .filter(c -> CORE_NAMES.contains(c.name())).toList();

  /** The header fields a usable record has (and {@code LineCheck} checks), in the order checked. */
  public static final List<HeaderField> REQUIRED_HEADER = List.of(HeaderField.ID, HeaderField.RANK,
      HeaderField.N_RANKS, HeaderField.NNODES);
  /** The perf fields a usable record has (and {@code LineCheck} checks), in the order checked. */
  public static final List<PerfField> REQUIRED_PERF = List.of(PerfField.OPERATION, PerfField.SEQUENCE,
      PerfField.MESSAGE_BYTES, PerfField.EXEC_TIME_US, PerfField.TIMING_SOURCE);

  /** The column that holds a format field as written, if one does. */
  public static Optional<Column> columnOf(RecordField f) {
    return COLUMNS.stream().filter(c -> c.source() == f).findFirst();
  }

  /**
   * The raw rows: fields flattened out of the JSON structs, under r_ names, with {@code r_file}
   * and {@code r_wrong_type} (some field holds a value of another JSON type than its own).
   *
   * @param fileColumn the column of {@code source} that names the line's file
   * @param reading how the engine's reader hands the fields over
   * @param source the engine's reader: the four objects of {@link JsonLayout} and the file column
   */
  public static String raw(String fileColumn, JsonLayout.Reading reading, String source) {
    return raw(fileColumn, reading, source, ColumnSet.ALL);
  }

  /**
   * The raw rows that the columns of {@code set} and {@link #VALIDITY} are computed from: as
   * {@link #raw(String, JsonLayout.Reading, String)}, with the r_ columns of the fields they read
   * ({@link #fieldsRead}) only. With {@link JsonLayout.Reading#TYPED}, {@code source} must be a
   * reader of {@link #typedFields} ({@link JsonLayout#duckDbColumns(JsonLayout.Reading, Set)}).
   */
  public static String raw(String fileColumn, JsonLayout.Reading reading, String source,
      ColumnSet set) {
    return raw(fileColumn, reading, source, set, null);
  }

  /**
   * As {@link #raw(String, JsonLayout.Reading, String, ColumnSet)}; with {@link
   * JsonLayout.Reading#TYPED}, {@code source} must be a reader of {@link #typedFields} that
   * declares only those in {@code present} (null: all; {@link JsonLayout#duckDbColumns(
   * JsonLayout.Reading, Set, Set)}), the fields the lines hold.
   */
  public static String raw(String fileColumn, JsonLayout.Reading reading, String source,
      ColumnSet set, Set<String> present) {
    Set<RecordField> read = fieldsRead(set);
    List<String> raw = new ArrayList<>();
    raw.add("l_file AS r_file");
    raw.add(JsonLayout.presence(RecordKind.COLL.perfObject()) + " AS r_is_coll");
    raw.add(JsonLayout.presence(RecordKind.P2P.perfObject()) + " AS r_is_p2p");
    for (Column c : COLUMNS) {
      if (c.source() != null && read.contains(c.source())) {
        raw.add(JsonLayout.value(reading, c.source()) + " AS r_" + c.name());
      }
    }
    raw.add("l_wrong_type AS r_wrong_type");
    return "SELECT " + String.join(",\n  ", raw) + "\nFROM (" + JsonLayout.fields(reading,
        fileColumn, source, typedFields(set), present) + ") l_fields";
  }

  /**
   * The fields the typed reader is given for {@code set}: null for {@link ColumnSet#ALL} (every
   * field, the reader of before column sets), else {@link #fieldsRead}.
   */
  public static Set<RecordField> typedFields(ColumnSet set) {
    return set == ColumnSet.ALL ? null : fieldsRead(set);
  }

  private static final Pattern RAW_NAME = Pattern.compile("\\br_([a-z0-9_]+)");

  /**
   * The format fields the columns of {@code set} and {@link #VALIDITY} read: the fields the
   * set's columns hold, and those their SQL and the validity rule name by their r_ columns.
   */
  public static Set<RecordField> fieldsRead(ColumnSet set) {
    StringBuilder sql = new StringBuilder(VALIDITY);
    Set<RecordField> read = new LinkedHashSet<>();
    for (Column c : set.columns()) {
      c.field().ifPresent(read::add);
      if (c.sql() != null) {
        sql.append(' ').append(c.sql());
      }
    }
    Matcher m = RAW_NAME.matcher(sql);
    while (m.find()) {
      String name = m.group(1);
      COLUMNS.stream().filter(c -> c.name().equals(name)).findFirst()
          .flatMap(Column::field).ifPresent(read::add);
    }
    return read;
  }

  /**
   * Whether a row is a usable record: the same rules as {@code LineCheck} (the fields of {@link
   * #REQUIRED_HEADER} and {@link #REQUIRED_PERF}, exactly one perf object, no field of another
   * JSON type than its own). Rows the JSON reader could not parse at all arrive with every field
   * null and fail here too.
   */
  public static final String VALIDITY = validity();

  private static String validity() {
    StringJoiner j = new StringJoiner(" AND ", "(", ")");
    for (RecordField f : REQUIRED_HEADER) {
      j.add("r_" + columnOf(f).orElseThrow().name() + " IS NOT NULL");
    }
    j.add("r_is_coll <> r_is_p2p");
    for (RecordField f : REQUIRED_PERF) {
      j.add("r_" + columnOf(f).orElseThrow().name() + " IS NOT NULL");
    }
    j.add("NOT r_wrong_type");
    return j.toString();
  }

  /** The export's columns computed from the raw ones; {@code fileName} maps r_file. */
  public static String finalColumns(String fileName) {
    return finalColumns(fileName, ColumnSet.ALL);
  }

  /** The columns of {@code set}, computed from the raw ones; {@code fileName} maps r_file. */
  public static String finalColumns(String fileName, ColumnSet set) {
    StringJoiner j = new StringJoiner(",\n  ");
    for (Column c : set.columns()) {
      String sql = c.sql() == null ? "r_" + c.name() : c.sql().replace(FILE, fileName);
      j.add(sql + " AS " + c.name());
    }
    return j.toString();
  }
}
