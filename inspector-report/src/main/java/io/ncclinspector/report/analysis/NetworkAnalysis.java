package io.ncclinspector.report.analysis;

import io.ncclinspector.report.engine.SqlDialect;
import io.ncclinspector.report.engine.SqlEngine;
import io.ncclinspector.report.model.Exclusion;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where operations waited on the network, and for whom: the records' network breakdown (NCCL's
 * proxy events, network transports only) lined up per communicator.
 *
 * <p>Each record names its <em>slowest peer</em>: the peer whose first chunk its receives waited
 * for longest ({@code net_recv_wait_ns}), which is that peer's lateness plus one chunk's
 * transfer. The wait is attributed to that peer. In a ring or tree some peer is always the
 * slowest, so what matters is a wait well over the usual: a wait is <em>notable</em> when it
 * exceeds the waiting rank's median wait (per communicator and kind, collective or point to
 * point) by at least that median and at least the late threshold, i.e. it is more than twice the
 * usual and not within the threshold of it.
 *
 * <p>At a notable wait, the peer's own record of the same operation (a collective: the same
 * operation and sequence number; a receive: the matching send, the k-th send from the peer to the
 * rank for the k-th receive, as NCCL delivers them in order) tells why the peer was late (see
 * {@link WaitCause}): its wait for its own GPU's first chunk ({@code net_send_gpu_wait_ns}) over
 * its median, against the waiting rank's excess.
 *
 * <p>Per rank: bytes sent and received and the effective bandwidth (bytes over {@code net_time}).
 * Per rank and peer: the waits attributed to the peer and, where the records list their proxy
 * operations (verbose logs), the bytes sent to and received from it. A record read twice counts
 * once. Breakdown values out of any plausible range leave their record out of this analysis.
 */
public final class NetworkAnalysis {
  private final SqlEngine engine;
  private final SqlDialect d;
  private final AnalysisOptions options;
  private final NetworkTables tables;
  private final RecordGroups groups;

  public NetworkAnalysis(SqlEngine engine, RecordGroups groups, AnalysisOptions options) {
    this.engine = engine;
    this.groups = groups;
    this.d = engine.dialect();
    this.options = options;
    this.tables = new NetworkTables(engine);
  }

  /**
   * Runs the analysis over the relation {@code records}; if {@code waitsParquet} is not null,
   * every attributed wait is written there (also when there is none).
   */
  public NetworkResult run(Path waitsParquet) throws SQLException {
    long[] t = totals();
    tables.operations();
    tables.waits(options.lateThresholdMicros());
    if (waitsParquet != null) {
      engine.writeParquet("SELECT comm_id, comm_name, rank, peer, kind, op, sn,"
          + " msg AS msg_size_bytes, " + micros("wait_ns") + " AS wait_us, "
          + micros("excess_ns") + " AS excess_us, notable, "
          + micros("peer_gpu_wait_ns") + " AS peer_gpu_wait_us, "
          + micros("peer_gpu_excess_ns") + " AS peer_gpu_excess_us, cause FROM net_waits",
          waitsParquet);
    }
    List<String> notes = new ArrayList<>();
    double threshold = options.lateThresholdMicros();
    if (t[1] == t[2]) {
      notes.add("No network breakdown in the records: NCCL reports proxy events only on network"
          + " transports (InfiniBand, RoCE, sockets). Over NVLink or shared memory, with"
          + " NCCL_INSPECTOR_NETWORK_BREAKDOWN=0, or in the reference Inspector's logs there is"
          + " none, and nothing is estimated in its place.");
    }
    if (t[2] > 0) {
      notes.add(t[2] + " records have a network breakdown with a value out of any plausible"
          + " range (a negative or day-long time, more than 2^50 bytes); they are left out of"
          + " the network analysis.");
    }
    if (t[1] == t[2]) {
      return new NetworkResult(t[0], t[1], t[2], 0, 0, 0, threshold, List.of(), List.of(),
          List.of(), notes);
    }
    long detailed = engine.query("SELECT count(*) AS n FROM records WHERE "
        + NetworkTables.usable() + " AND " + tables.listsProxyOps(), r -> r.getLong("n")).get(0);
    tables.proxyDetail();
    long[] w = engine.query("SELECT count(*) AS waits, count(*) FILTER (WHERE notable)"
        + " AS notable FROM net_waits", r -> new long[] {r.getLong("waits"),
            r.getLong("notable")}).get(0);
    List<NetRank> ranks = ranks();
    Map<String, NetRank> byRank = new HashMap<>();
    ranks.forEach(r -> byRank.put(r.commId() + "/" + r.rank(), r));
    List<NetLink> links = links(byRank);
    List<NetWaitedFor> waitedFor = waitedFor(byRank);
    if (detailed == 0) {
      notes.add("Per-peer bytes and bandwidth need verbose records (NCCL_INSPECTOR_DUMP_VERBOSE=1),"
          + " which list each proxy operation with its peer: these records have only the"
          + " per-record summary, so the rank × peer matrix has the waits only.");
    }
    if (w[0] > 0 && w[1] == 0) {
      notes.add("No notable wait: no operation waited for its slowest peer more than twice as"
          + " long as usual (and at least the late threshold longer).");
    }
    return new NetworkResult(t[0], t[1], t[2], detailed, w[0], w[1], threshold, ranks, links,
        waitedFor, notes);
  }

  /**
   * Records looked at, with a breakdown, with an implausible one. The last reads the records,
   * and only where some have a breakdown (a job over NVLink or shared memory has none).
   */
  private long[] totals() throws SQLException {
    String identified = Exclusion.identifiedSql();
    long[] t = engine.query("SELECT " + RecordGroups.count("n", identified) + " AS n,"
        + " " + RecordGroups.count("net", identified) + " AS net"
        + " FROM " + groups.table(),
        r -> new long[] {r.getLong("n"), r.getLong("net"), 0}).get(0);
    if (t[1] > 0) {
      t[2] = engine.query("SELECT count(*) AS n FROM records WHERE " + identified
          + " AND net_proxy_ops IS NOT NULL AND NOT (" + NetworkTables.plausible() + ")",
          r -> r.getLong("n")).get(0);
    }
    return t;
  }

  private List<NetRank> ranks() throws SQLException {
    String timed = " FILTER (WHERE time_ns > 0)";
    return engine.query("SELECT comm_id, min(comm_name) AS comm_name, rank,"
        + " min(hostname) AS hostname, min(pid) AS pid, count(*) AS ops,"
        + " " + d.wideSum("sent") + " AS sent, " + d.wideSum("recv") + " AS recv,"
        + " " + d.wideSum("time_ns") + timed + " AS time_ns,"
        + " " + d.wideSum("sent") + timed + " AS timed_sent,"
        + " " + d.wideSum("recv") + timed + " AS timed_recv,"
        + " " + d.quantile(micros("gpu_wait"), 0.5) + " FILTER (WHERE sent > 0) AS gpu_p50,"
        + " max(gpu_wait) FILTER (WHERE sent > 0) AS gpu_max,"
        + " " + d.quantile(micros("recv_wait"), 0.5) + " FILTER (WHERE waited) AS recv_p50,"
        + " max(recv_wait) FILTER (WHERE waited) AS recv_max"
        + " FROM net_ops GROUP BY comm_id, rank ORDER BY comm_id, rank",
        r -> {
          Double timeNs = Rows.doubleOrNull(r, "time_ns");
          return new NetRank(r.getString("comm_id"), r.getString("comm_name"), r.getInt("rank"),
              r.getString("hostname"), Rows.longOrNull(r, "pid"), r.getLong("ops"),
              Rows.longOr0(r, "sent"), Rows.longOr0(r, "recv"),
              timeNs == null ? 0 : timeNs / 1e6,
              perNano(Rows.doubleOrNull(r, "timed_sent"), timeNs),
              perNano(Rows.doubleOrNull(r, "timed_recv"), timeNs),
              Rows.doubleOrNull(r, "gpu_p50"), nanosToMicros(Rows.longOrNull(r, "gpu_max")),
              Rows.doubleOrNull(r, "recv_p50"), nanosToMicros(Rows.longOrNull(r, "recv_max")));
        });
  }

  private List<NetLink> links(Map<String, NetRank> byRank) throws SQLException {
    String waits = "SELECT comm_id, min(comm_name) AS comm_name, rank, peer, count(*) AS ops,"
        + " " + d.wideSum("wait_ns") + " AS wait_ns,"
        + " " + d.quantile(micros("wait_ns"), 0.5) + " AS wait_p50, max(wait_ns) AS wait_max,"
        + " count(*) FILTER (WHERE notable) AS notable,"
        + " sum(excess_ns) FILTER (WHERE notable) AS excess_ns"
        + " FROM net_waits GROUP BY comm_id, rank, peer";
    return engine.query("SELECT coalesce(a.comm_id, b.comm_id) AS comm_id, a.comm_name,"
        + " coalesce(a.rank, b.rank) AS rank, coalesce(a.peer, b.peer) AS peer, a.ops,"
        + " a.wait_ns, a.wait_p50, a.wait_max, a.notable, a.excess_ns, b.to_peer, b.from_peer,"
        + " b.to_timed, b.to_us, b.from_timed, b.from_us"
        + " FROM (" + waits + ") a FULL OUTER JOIN net_peer_bytes b ON a.comm_id = b.comm_id"
        + " AND a.rank = b.rank AND a.peer = b.peer",
        r -> {
          String comm = r.getString("comm_id");
          int rank = r.getInt("rank");
          NetRank info = byRank.get(comm + "/" + rank);
          String name = r.getString("comm_name");
          return new NetLink(comm, name != null || info == null ? name : info.commName(), rank,
              r.getInt("peer"), Rows.longOr0(r, "ops"), Rows.longOr0(r, "wait_ns") / 1e6,
              Rows.doubleOrNull(r, "wait_p50"), nanosToMicros(Rows.longOrNull(r, "wait_max")),
              Rows.longOr0(r, "notable"), orZero(Rows.doubleOrNull(r, "excess_ns")) / 1e6,
              Rows.longOrNull(r, "to_peer"), Rows.longOrNull(r, "from_peer"),
              perMicro(Rows.doubleOrNull(r, "to_timed"), Rows.doubleOrNull(r, "to_us")),
              perMicro(Rows.doubleOrNull(r, "from_timed"), Rows.doubleOrNull(r, "from_us")));
        }).stream().sorted(Comparator.comparing(NetLink::commId)
            .thenComparingInt(NetLink::rank).thenComparingInt(NetLink::peer)).toList();
  }

  private List<NetWaitedFor> waitedFor(Map<String, NetRank> byRank) throws SQLException {
    String classified = "cause IN ('" + WaitCause.OWN_GPU_LATE.label() + "', '"
        + WaitCause.ARRIVED_LATE.label() + "')";
    return engine.query("SELECT comm_id, min(comm_name) AS comm_name, peer AS rank,"
        + " count(*) AS ops, " + d.wideSum("wait_ns") + " AS wait_ns,"
        + " " + d.quantile(micros("wait_ns"), 0.5) + " AS wait_p50,"
        + " count(*) FILTER (WHERE notable) AS notable,"
        + " sum(excess_ns) FILTER (WHERE notable) AS excess_ns,"
        + " " + d.quantile(micros("excess_ns"), 0.5) + " FILTER (WHERE notable) AS excess_p50,"
        + " count(*) FILTER (WHERE cause = '" + WaitCause.OWN_GPU_LATE.label() + "') AS gpu,"
        + " count(*) FILTER (WHERE cause = '" + WaitCause.ARRIVED_LATE.label() + "') AS late,"
        + " count(*) FILTER (WHERE cause = '" + WaitCause.UNKNOWN.label() + "') AS unknown,"
        + " " + d.quantile(micros("peer_gpu_excess_ns"), 0.5) + " FILTER (WHERE " + classified
        + ") AS gpu_excess_p50"
        + " FROM net_waits GROUP BY comm_id, peer ORDER BY comm_id, peer",
        r -> {
          String comm = r.getString("comm_id");
          int rank = r.getInt("rank");
          NetRank info = byRank.get(comm + "/" + rank);
          long notable = r.getLong("notable");
          long gpu = r.getLong("gpu");
          long late = r.getLong("late");
          return new NetWaitedFor(comm, r.getString("comm_name"), rank,
              info == null ? null : info.hostname(), info == null ? null : info.pid(),
              r.getLong("ops"), Rows.longOr0(r, "wait_ns") / 1e6,
              Rows.doubleOrNull(r, "wait_p50"), notable,
              orZero(Rows.doubleOrNull(r, "excess_ns")) / 1e6,
              Rows.doubleOrNull(r, "excess_p50"), gpu, late, r.getLong("unknown"),
              Rows.doubleOrNull(r, "gpu_excess_p50"),
              WaitCause.verdict(notable, gpu, late).label());
        });
  }

  private static String micros(String nanos) {
    return StragglerAnalysis.micros(nanos);
  }

  private static Double nanosToMicros(Long nanos) {
    return nanos == null ? null : nanos / 1000.0;
  }

  private static double orZero(Double v) {
    return v == null ? 0 : v;
  }

  /** Bytes per nanosecond: GB/s; null without time. */
  private static Double perNano(Double bytes, Double nanos) {
    return bytes == null || nanos == null || !(nanos > 0) ? null : bytes / nanos;
  }

  /** Bytes per microsecond, as GB/s; null without time. */
  private static Double perMicro(Double bytes, Double micros) {
    return bytes == null || micros == null || !(micros > 0) ? null : bytes / micros / 1000;
  }
}
