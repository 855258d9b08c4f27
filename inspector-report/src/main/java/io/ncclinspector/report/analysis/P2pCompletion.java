package io.ncclinspector.report.analysis;

import io.ncclinspector.report.engine.SqlDialect;
import io.ncclinspector.report.engine.SqlEngine;
import io.ncclinspector.report.model.Exclusion;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * When a point-to-point receive really completed.
 *
 * <p>NCCL's kernel-channel stop is written by thread 0 at the end of the work with no barrier; in
 * a SendRecv kernel thread 0 runs the send part, so a P2P record's GPU time ends when the rank's
 * own send finished, not when the data it receives arrived (the records say so with the flag
 * {@code send_side_stop}). The data has arrived when the peer's send has finished. With both
 * ranks' logs, the receive's completion is the later of its own stop and the peer's send-side
 * stop, the peer's time taken onto the receiver's GPU clock by removing both ranks' clock offsets
 * (with {@code --clock-sync none} the clocks are taken as they are).
 *
 * <p>Clock offsets belong to a GPU, not to a communicator: the straggler analysis estimates them
 * per communicator from its symmetric collectives, relative to that communicator's ranks, and
 * pipeline communicators often run no collective at all. So the offsets are joined up per process
 * (host and pid; one GPU per process): starting from any process, each communicator with
 * estimated offsets gives its other members' clocks relative to one already placed. Two processes
 * that no chain of such communicators connects have no common clock.
 *
 * <p>Pairing: NCCL delivers the point-to-point operations between two ranks of a communicator in
 * order, so the k-th send from A to B is the k-th receive at B from A (both in sequence-number
 * order). A record missing on one side (a log not given, a record dropped or cut by
 * {@code --min-size}) shifts the pairing: pairs whose sizes differ are counted and not used. Runs
 * after {@link StragglerAnalysis}, whose clock offsets ({@code st_comm_offsets}) it reads.
 */
public final class P2pCompletion {
  private final SqlEngine engine;
  private final SqlDialect d;
  private final AnalysisOptions options;

  public P2pCompletion(SqlEngine engine, AnalysisOptions options) {
    this.engine = engine;
    this.d = engine.dialect();
    this.options = options;
  }

  /**
   * Runs the analysis over the relation {@code records}; if {@code receivesParquet} is not null,
   * every measured receive is written there (see {@link SqlEngine#writeParquet}).
   */
  public P2pCompletionResult run(Path receivesParquet) throws SQLException {
    String clock = options.clockSync().name().toLowerCase(Locale.ROOT);
    String usable = "gpu_start_ns > 0 AND " + Exclusion.alignableSql("") + " AND"
        + " (excluded_reason IS NULL OR excluded_reason NOT IN ('" + Exclusion.CPU_TIMING.label() + "', '"
        + Exclusion.GROUP_TIME.label() + "'))";
    // One row per P2P operation of a rank (a log read twice counts once), numbered per
    // (communicator, rank, peer, direction) in sequence-number order.
    engine.createTable("p2p_ops", "SELECT comm_id, comm_name, rank, peer, op, sn, hostname, pid,"
        + " msg, start_ns,"
        + " start_ns + span_ns AS end_ns,"
        + " row_number() OVER (PARTITION BY comm_id, rank, peer, op ORDER BY sn) AS nth"
        + " FROM (SELECT comm_id, min(comm_name) AS comm_name, rank, peer, op, sn,"
        + "   min(hostname) AS hostname, min(pid) AS pid,"
        + "   min(msg_size_bytes) AS msg,"
        + "   min(CASE WHEN " + usable + " THEN gpu_start_ns END) AS start_ns,"
        + "   min(CASE WHEN " + usable + " THEN coalesce(gpu_span_ns,"
        + "     CAST(round(exec_us * 1000) AS BIGINT)) END) AS span_ns"
        + "   FROM records WHERE kind = 'p2p' AND op IN ('Send', 'Recv') AND peer IS NOT NULL"
        + "   AND " + Exclusion.identifiedSql()
        + "   AND peer <> rank GROUP BY comm_id, rank, peer, op, sn) o");
    boolean sync = options.clockSync() == ClockSync.AUTO;
    if (sync) {
      processOffsets();
    }
    // Receiver's clock = true time + its offset; the sender's stop on the receiver's clock is
    // its stop − the sender's offset + the receiver's offset.
    String shift = sync
        ? "CAST(round(ro.offset_ns - so.offset_ns) AS BIGINT)" : "CAST(0 AS BIGINT)";
    String offsetMissing = sync ? "ro.offset_ns IS NULL OR so.offset_ns IS NULL" : "false";
    engine.createTable("p2p_pairs", "SELECT r.comm_id, r.comm_name, r.rank, r.peer, r.sn,"
        + " r.msg, r.start_ns,"
        + " CASE WHEN s.rank IS NULL THEN 'no_peer_record'"
        + "   WHEN s.msg <> r.msg THEN 'size_mismatch'"
        + "   WHEN r.start_ns IS NULL OR s.start_ns IS NULL THEN 'untimed'"
        + "   WHEN " + offsetMissing + " THEN 'no_clock_offset' END AS unmeasured,"
        + " r.end_ns - r.start_ns AS own_ns,"
        + " greatest(r.end_ns, s.end_ns + " + shift + ") - r.start_ns AS completion_ns"
        + " FROM p2p_ops r"
        + " LEFT JOIN p2p_ops s ON s.comm_id = r.comm_id AND s.rank = r.peer"
        + "   AND s.peer = r.rank AND s.op = 'Send' AND s.nth = r.nth"
        + (sync ? " LEFT JOIN p2p_clock ro ON ro.hostname = r.hostname AND ro.pid = r.pid"
            + " LEFT JOIN p2p_clock so ON so.hostname = s.hostname AND so.pid = s.pid" : "")
        + " WHERE r.op = 'Recv'");
    long[] c = engine.query("SELECT count(*) AS n,"
        + " count(*) FILTER (WHERE unmeasured IS NULL) AS measured,"
        + " count(*) FILTER (WHERE unmeasured = 'no_peer_record') AS no_peer,"
        + " count(*) FILTER (WHERE unmeasured = 'size_mismatch') AS mismatch,"
        + " count(*) FILTER (WHERE unmeasured = 'untimed') AS untimed,"
        + " count(*) FILTER (WHERE unmeasured = 'no_clock_offset') AS no_offset FROM p2p_pairs",
        r -> new long[] {r.getLong("n"), r.getLong("measured"), r.getLong("no_peer"),
            r.getLong("mismatch"), r.getLong("untimed"), r.getLong("no_offset")}).get(0);
    String ext = "completion_ns - own_ns";
    if (receivesParquet != null) { // written even when empty: every report has the same files
      engine.writeParquet("SELECT comm_id, comm_name, rank, peer, sn, msg AS msg_size_bytes,"
          + " start_ns AS gpu_start_ns, " + StragglerAnalysis.micros("own_ns") + " AS logged_us, "
          + StragglerAnalysis.micros("completion_ns") + " AS completion_us, " + ext + " > 0 AS peer_later"
          + " FROM p2p_pairs WHERE unmeasured IS NULL", receivesParquet);
    }
    if (c[0] == 0) {
      return P2pCompletionResult.none(clock);
    }
    List<P2pTransfer> rows = engine.query("SELECT comm_id, min(comm_name) AS comm_name, rank,"
        + " peer, msg,"
        + " count(*) AS pairs, count(*) FILTER (WHERE " + ext + " > 0) AS later,"
        + " " + d.quantile(StragglerAnalysis.micros("own_ns"), 0.5) + " AS own_p50,"
        + " " + d.quantile(StragglerAnalysis.micros("completion_ns"), 0.5) + " AS done_p50,"
        + " " + d.quantile(StragglerAnalysis.micros("completion_ns"), 0.99) + " AS done_p99,"
        + " " + d.quantile(StragglerAnalysis.micros(ext), 0.5) + " FILTER (WHERE " + ext + " > 0) AS ext_p50,"
        + " max(" + StragglerAnalysis.micros(ext) + ") AS ext_max"
        + " FROM p2p_pairs WHERE unmeasured IS NULL GROUP BY comm_id, rank, peer, msg"
        + " ORDER BY comm_id, rank, peer, msg",
        r -> new P2pTransfer(r.getString("comm_id"), r.getString("comm_name"), r.getInt("rank"),
            r.getInt("peer"), r.getLong("msg"),
            r.getLong("pairs"), r.getLong("later"), Rows.doubleOrNull(r, "own_p50"),
            Rows.doubleOrNull(r, "done_p50"), Rows.doubleOrNull(r, "done_p99"),
            Rows.doubleOrNull(r, "ext_p50"), Rows.doubleOrNull(r, "ext_max")));
    List<String> notes = new ArrayList<>();
    if (c[1] == 0) {
      notes.add(explainNoneMeasured(c));
    }
    return new P2pCompletionResult(clock, c[0], c[1], c[2], c[3], c[4], c[5], rows, notes);
  }

  /** One GPU clock offset per process, joined up across communicators. */
  private void processOffsets() throws SQLException {
    record Member(String comm, String process, String hostname, long pid, double offset) {}
    List<Member> members = engine.query("SELECT o.comm_id, i.hostname, i.pid, o.offset_ns"
        + " FROM st_comm_offsets o JOIN st_rank_info i ON o.comm_id = i.comm_id"
        + " AND o.rank = i.rank WHERE o.applied AND i.hostname IS NOT NULL AND i.pid IS NOT NULL"
        + " ORDER BY o.comm_id, i.hostname, i.pid",
        r -> new Member(r.getString("comm_id"), r.getString("hostname") + "\0"
            + r.getLong("pid"), r.getString("hostname"), r.getLong("pid"),
            r.getDouble("offset_ns")));
    Map<String, List<Member>> byComm = new TreeMap<>();
    Map<String, List<Member>> byProcess = new TreeMap<>();
    for (Member m : members) {
      byComm.computeIfAbsent(m.comm(), k -> new ArrayList<>()).add(m);
      byProcess.computeIfAbsent(m.process(), k -> new ArrayList<>()).add(m);
    }
    // Breadth first from each process not yet placed, in a fixed order so that every engine
    // places the same way: a member q of a communicator that holds a placed p gets
    // offset(p) + (q's offset − p's offset) in that communicator.
    Map<String, Double> offset = new LinkedHashMap<>();
    Map<String, Member> any = new LinkedHashMap<>();
    for (String root : byProcess.keySet()) {
      if (offset.containsKey(root)) {
        continue;
      }
      offset.put(root, 0.0);
      ArrayDeque<String> queue = new ArrayDeque<>(List.of(root));
      while (!queue.isEmpty()) {
        String p = queue.poll();
        for (Member pm : byProcess.get(p)) {
          any.putIfAbsent(p, pm);
          for (Member q : byComm.get(pm.comm())) {
            if (!offset.containsKey(q.process())) {
              offset.put(q.process(), offset.get(p) + q.offset() - pm.offset());
              queue.add(q.process());
            }
          }
        }
      }
    }
    StringJoiner rows = new StringJoiner(", ");
    offset.forEach((p, o) -> rows.add("(" + d.literal(any.get(p).hostname()) + ", "
        + any.get(p).pid() + ", " + new BigDecimal(o).setScale(3, RoundingMode.HALF_EVEN)
            .toPlainString() + ")"));
    engine.createSmallTable("p2p_clock", offset.isEmpty()
        ? "SELECT CAST(NULL AS STRING) AS hostname, CAST(NULL AS BIGINT) AS pid,"
            + " CAST(0 AS DOUBLE) AS offset_ns FROM st_keys WHERE false"
        : "SELECT CAST(h AS STRING) AS hostname, CAST(p AS BIGINT) AS pid,"
            + " CAST(o AS DOUBLE) AS offset_ns FROM (VALUES " + rows + ") AS t(h, p, o)");
  }

  private static String explainNoneMeasured(long[] c) {
    if (c[2] == c[0]) {
      return "No receive's send was found: give the report the logs of both ranks of each"
          + " point-to-point transfer.";
    }
    if (c[4] >= c[5] && c[4] >= c[3]) {
      return "The paired receives or sends have no GPU time (CPU-timed or quarantined"
          + " records).";
    }
    if (c[5] >= c[3]) {
      return "The ranks' GPU clock offsets could not be estimated (no chain of communicators"
          + " with enough symmetric collectives joins their processes); --clock-sync none takes"
          + " the clocks as they are.";
    }
    return "Sends and receives did not pair up (records missing on one side).";
  }
}
