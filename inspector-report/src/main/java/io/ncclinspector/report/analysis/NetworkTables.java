package io.ncclinspector.report.analysis;

import io.ncclinspector.format.ProxyOpField;
import io.ncclinspector.format.RecordKind;
import io.ncclinspector.format.TraceField;
import io.ncclinspector.report.engine.SqlDialect;
import io.ncclinspector.report.engine.SqlEngine;
import io.ncclinspector.report.ingest.JsonLayout;
import io.ncclinspector.report.model.Exclusion;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The intermediate tables of the {@link NetworkAnalysis}, from the relation {@code records}:
 * {@code net_ops} (one row per operation with a usable breakdown), {@code net_wait_usual} and
 * {@code net_gpu_usual} (the medians a wait is compared with), {@code net_waits} (every wait
 * attributed to a slowest peer, with its cause) and {@code net_peer_bytes} (bytes per rank and
 * peer from verbose records' proxy operations).
 */
final class NetworkTables {
  private static final String PROXY_OPS = TraceField.PROXY_OPS.jsonName(RecordKind.COLL);
  private static final long DAY_US = Exclusion.MAX_PLAUSIBLE_DURATION_NS / 1000;

  private final SqlEngine engine;
  private final SqlDialect d;

  NetworkTables(SqlEngine engine) {
    this.engine = engine;
    this.d = engine.dialect();
  }

  /** The breakdown's values are within range (null where a field was not written). */
  static String plausible() {
    long bytes = Exclusion.MAX_PLAUSIBLE_MESSAGE_BYTES;
    long time = Exclusion.MAX_PLAUSIBLE_DURATION_NS;
    return "net_proxy_ops >= 0"
        + " AND " + within("net_bytes_sent", bytes) + " AND " + within("net_bytes_recv", bytes)
        + " AND " + within("net_time_ns", time) + " AND " + within("net_send_gpu_wait_ns", time)
        + " AND " + within("net_recv_wait_ns", time);
  }

  private static String within(String column, long max) {
    return "coalesce(" + column + ", 0) BETWEEN 0 AND " + max;
  }

  static String usable() {
    return Exclusion.identifiedSql() + " AND net_proxy_ops IS NOT NULL AND " + plausible();
  }

  String listsProxyOps() {
    return "event_trace_ts LIKE " + d.literal("%\"" + PROXY_OPS + "\"%");
  }

  /**
   * {@code net_ops}: one row per operation of a rank with a usable breakdown. {@code pair_key} is
   * a P2P record's peer (-1 for collectives); {@code xfer} identifies the operation across ranks:
   * a collective's sequence number, a P2P operation's position among the rank's operations of
   * that direction with that peer. {@code waited}: it names a slowest peer other than itself,
   * in the communicator, and the wait.
   */
  void operations() throws SQLException {
    String one = "SELECT comm_id, min(comm_name) AS comm_name, rank, max(n_ranks) AS n_ranks,"
        + " kind, op, sn, coalesce(peer, -1) AS pair_key, min(hostname) AS hostname,"
        + " min(pid) AS pid, min(msg_size_bytes) AS msg, min(net_bytes_sent) AS sent,"
        + " min(net_bytes_recv) AS recv, min(net_time_ns) AS time_ns,"
        + " min(net_send_gpu_wait_ns) AS gpu_wait, min(net_recv_wait_ns) AS recv_wait,"
        + " min(net_slowest_peer) AS slowest"
        + " FROM records WHERE " + usable()
        + " GROUP BY comm_id, rank, kind, op, sn, coalesce(peer, -1)";
    engine.createTable("net_ops", "SELECT o.*,"
        + " CASE WHEN kind = 'p2p' THEN row_number() OVER (PARTITION BY comm_id, rank, kind, op,"
        + "   pair_key ORDER BY sn) ELSE sn END AS xfer,"
        + " coalesce(slowest >= 0 AND slowest <> rank AND (n_ranks <= 0 OR slowest < n_ranks)"
        + "   AND recv_wait IS NOT NULL, false) AS waited"
        + " FROM (" + one + ") o");
    // The usual waits: per communicator, rank and kind.
    engine.createSmallTable("net_wait_usual", "SELECT comm_id, rank, kind, "
        + d.quantile("CAST(recv_wait AS DOUBLE)", 0.5) + " AS usual FROM net_ops WHERE waited"
        + " GROUP BY comm_id, rank, kind");
    engine.createSmallTable("net_gpu_usual", "SELECT comm_id, rank, kind, "
        + d.quantile("CAST(gpu_wait AS DOUBLE)", 0.5) + " AS usual FROM net_ops WHERE sent > 0"
        + " GROUP BY comm_id, rank, kind");
  }

  /**
   * {@code net_waits}: one row per operation that names a slowest peer, with the peer's own
   * record of the operation where the logs have it, and the cause of a notable wait.
   */
  void waits(double lateThresholdMicros) throws SQLException {
    long thresholdNs = Math.round(lateThresholdMicros * 1000);
    String excess = "(w.recv_wait - b.usual)";
    String notable = "(" + excess + " >= greatest(CAST(" + thresholdNs + " AS DOUBLE), b.usual))";
    String peerExcess = "(o.gpu_wait - g.usual)";
    engine.createTable("net_waits", "SELECT w.comm_id, w.comm_name, w.rank, w.slowest AS peer,"
        + " w.kind, w.op, w.sn, w.msg, w.recv_wait AS wait_ns, " + excess + " AS excess_ns,"
        + " " + notable + " AS notable, o.gpu_wait AS peer_gpu_wait_ns,"
        + " " + peerExcess + " AS peer_gpu_excess_ns,"
        + " CASE WHEN NOT " + notable + " THEN NULL"
        + "   WHEN o.rank IS NULL OR g.usual IS NULL OR o.gpu_wait IS NULL OR o.sent = 0"
        + "     OR coalesce(o.msg, -1) <> coalesce(w.msg, -1) THEN '" + WaitCause.UNKNOWN.label()
        + "'"
        + "   WHEN 2 * " + peerExcess + " >= " + excess + " THEN '"
        + WaitCause.OWN_GPU_LATE.label() + "'"
        + "   ELSE '" + WaitCause.ARRIVED_LATE.label() + "' END AS cause"
        + " FROM net_ops w"
        + " JOIN net_wait_usual b ON b.comm_id = w.comm_id AND b.rank = w.rank"
        + "   AND b.kind = w.kind"
        + " LEFT JOIN net_ops o ON o.comm_id = w.comm_id AND o.rank = w.slowest"
        + "   AND o.kind = w.kind AND o.xfer = w.xfer"
        + "   AND o.op = CASE WHEN w.kind = 'coll' THEN w.op"
        + "     WHEN w.op = 'Recv' AND w.pair_key = w.slowest THEN 'Send' END"
        + "   AND o.pair_key = CASE WHEN w.kind = 'coll' THEN -1 ELSE w.rank END"
        + " LEFT JOIN net_gpu_usual g ON g.comm_id = o.comm_id AND g.rank = o.rank"
        + "   AND g.kind = o.kind"
        + " WHERE w.waited");
  }

  /**
   * {@code net_peer_bytes}: per communicator, rank and peer, the bytes of the proxy operations
   * that verbose records list, and the time they took per operation: from the first post to the
   * last done of that peer's proxy operations in that direction.
   */
  void proxyDetail() throws SQLException {
    List<JsonLayout.Field> fields = new ArrayList<>();
    for (ProxyOpField f : List.of(ProxyOpField.CHANNEL_ID, ProxyOpField.PEER, ProxyOpField.SEND,
        ProxyOpField.BYTES, ProxyOpField.POST_TS, ProxyOpField.DONE_TS)) {
      fields.add(new JsonLayout.Field(f.jsonName(), JsonLayout.Type.of(f.type())));
    }
    String exploded = "SELECT comm_id, rank, n_ranks, kind, op, sn, coalesce(peer, -1) AS pair_key,"
        + " " + d.explode(d.jsonStructArray("event_trace_ts", PROXY_OPS, fields)) + " AS x"
        + " FROM records WHERE " + usable() + " AND " + listsProxyOps();
    String flat = "SELECT comm_id, rank, n_ranks, kind, op, sn, pair_key,"
        + " e.x." + ProxyOpField.CHANNEL_ID.jsonName() + " AS channel,"
        + " e.x." + ProxyOpField.PEER.jsonName() + " AS px_peer,"
        + " e.x." + ProxyOpField.SEND.jsonName() + " AS send,"
        + " e.x." + ProxyOpField.BYTES.jsonName() + " AS bytes,"
        + " e.x." + ProxyOpField.POST_TS.jsonName() + " AS post_ts,"
        + " e.x." + ProxyOpField.DONE_TS.jsonName() + " AS done_ts"
        + " FROM (" + exploded + ") e";
    // One row per proxy operation (a record read twice counts once).
    String proxyOps = "SELECT comm_id, rank, kind, op, sn, pair_key, channel, px_peer, send,"
        + " min(bytes) AS bytes, min(post_ts) AS post_ts, max(done_ts) AS done_ts"
        + " FROM (" + flat + ") f"
        + " WHERE px_peer >= 0 AND px_peer <> rank AND (n_ranks <= 0 OR px_peer < n_ranks)"
        + " AND send IS NOT NULL AND bytes BETWEEN 0 AND " + Exclusion.MAX_PLAUSIBLE_MESSAGE_BYTES
        + " GROUP BY comm_id, rank, kind, op, sn, pair_key, channel, px_peer, send";
    // Per operation, peer and direction.
    String perOp = "SELECT comm_id, rank, px_peer, send, sum(bytes) AS bytes,"
        + " max(done_ts) - min(post_ts) AS span_us,"
        + " count(post_ts) = count(*) AND count(done_ts) = count(*)"
        + "   AND max(done_ts) - min(post_ts) BETWEEN 0 AND " + DAY_US + " AS timed"
        + " FROM (" + proxyOps + ") p GROUP BY comm_id, rank, kind, op, sn, pair_key, px_peer,"
        + " send";
    engine.createTable("net_peer_bytes", "SELECT comm_id, rank, px_peer AS peer,"
        + " " + d.wideSum("bytes") + " FILTER (WHERE send) AS to_peer,"
        + " " + d.wideSum("bytes") + " FILTER (WHERE NOT send) AS from_peer,"
        + " " + d.wideSum("bytes") + " FILTER (WHERE send AND timed) AS to_timed,"
        + " " + d.wideSum("span_us") + " FILTER (WHERE send AND timed) AS to_us,"
        + " " + d.wideSum("bytes") + " FILTER (WHERE NOT send AND timed) AS from_timed,"
        + " " + d.wideSum("span_us") + " FILTER (WHERE NOT send AND timed) AS from_us"
        + " FROM (" + perOp + ") q GROUP BY comm_id, rank, px_peer");
  }
}
