package io.ncclinspector.report.analysis;

import io.ncclinspector.report.engine.SqlDialect;
import io.ncclinspector.report.engine.SqlEngine;
import io.ncclinspector.report.model.Exclusion;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The summaries, computed by the engine over the imported records (a relation named
 * {@code records} with the export's columns). The SQL is the same for every engine; {@link
 * SqlDialect} spells the few parts that differ.
 */
public final class SummaryQueries {
  private static final double[] BUSBW_QUANTILES = {0.05, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99};
  private static final int HISTOGRAM_BINS = 30;

  private final SqlEngine engine;
  private final SqlDialect d;
  private final RecordGroups groups;
  private final AnalysisOptions options;

  /** Queries over the engine's {@code records} and the table of counts made from them. */
  public SummaryQueries(SqlEngine engine, RecordGroups groups, AnalysisOptions options) {
    this.engine = engine;
    this.d = engine.dialect();
    this.groups = groups;
    this.options = options;
  }

  public Overview overview() throws SQLException {
    String used = options.includedSql();
    Object[] totals = engine.query("SELECT " + RecordGroups.count("n", null) + " AS n,"
        + " " + RecordGroups.count("n", "kind = 'coll'") + " AS colls,"
        + " " + RecordGroups.count("n", "kind = 'p2p'") + " AS p2ps,"
        + " " + RecordGroups.count("n", used) + " AS used,"
        + " count(DISTINCT comm_id) AS comms,"
        + " (SELECT count(*) FROM (SELECT DISTINCT hostname, pid FROM " + groups.table()
        + ") p) AS procs,"
        + " count(DISTINCT hostname) AS hosts,"
        + " min(first_us) AS first_us, max(last_us) AS last_us,"
        + " " + RecordGroups.count("gpu_start", "kind = 'coll'") + " AS gpu_start"
        + " FROM " + groups.table(), r -> new Object[] {r.getLong("n"), r.getLong("colls"),
            r.getLong("p2ps"), r.getLong("used"), r.getLong("comms"), r.getLong("procs"),
            r.getLong("hosts"), Rows.longOrNull(r, "first_us"), Rows.longOrNull(r, "last_us"),
            r.getLong("gpu_start")}).get(0);
    // One query for all the count maps.
    Map<String, Map<String, Long>> maps = new LinkedHashMap<>();
    for (String k : new String[] {"excluded", "producer", "timing_source", "comm_type"}) {
      maps.put(k, new LinkedHashMap<>());
    }
    engine.query("SELECT CASE WHEN GROUPING(excluded) = 0 THEN 'excluded'"
        + " WHEN GROUPING(producer) = 0 THEN 'producer'"
        + " WHEN GROUPING(timing_source) = 0 THEN 'timing_source' ELSE 'comm_type' END AS map,"
        + " coalesce(excluded, producer, timing_source, comm_type, '(none)') AS k,"
        + " " + RecordGroups.count("n", null) + " AS n"
        + " FROM (SELECT CASE WHEN " + used + " THEN NULL"
        + " ELSE coalesce(excluded_reason, 'cpu_timing') END AS excluded, producer,"
        + " timing_source, comm_type, n FROM " + groups.table() + ")"
        + " GROUP BY GROUPING SETS ((excluded), (producer), (timing_source), (comm_type))"
        + " ORDER BY map, n DESC, k", r -> {
          String map = r.getString("map");
          String key = r.getString("k");
          if (!(map.equals("excluded") && key.equals("(none)"))) {
            maps.get(map).put(key, r.getLong("n"));
          }
          return null;
        });
    return new Overview((Long) totals[0], (Long) totals[1], (Long) totals[2], (Long) totals[3],
        maps.get("excluded"), (Long) totals[4], (Long) totals[5], (Long) totals[6],
        (Long) totals[7], (Long) totals[8], maps.get("producer"), maps.get("timing_source"),
        maps.get("comm_type"), (Long) totals[9]);
  }

  /** Class × kind × operation × size bucket, over the records the figures use. */
  public List<ClassSummary> classSummaries() throws SQLException {
    SizeBucketing b = options.sizeBucketing();
    // The size's exponent once a row, in the inner query; the bucket's checks read it.
    String sql = "SELECT comm_type, kind, op, " + b.sql("msg_size_bytes", "size_exp", d)
        + " AS bucket,"
        + " count(*) AS n, count(DISTINCT comm_id) AS comms,"
        + " min(msg_size_bytes) AS min_size, max(msg_size_bytes) AS max_size,"
        + " " + recordBytes() + " AS total_bytes,"
        + " min(exec_us) AS exec_min, " + d.quantiles("exec_us", 0.5, 0.9, 0.99) + " AS exec_q,"
        + " max(exec_us) AS exec_max, avg(exec_us) AS exec_mean,"
        + " min(busbw_gbs) AS bw_min, " + d.quantiles("busbw_gbs", BUSBW_QUANTILES)
        + " AS bw_q, max(busbw_gbs) AS bw_max, avg(busbw_gbs) AS bw_mean"
        + " FROM (SELECT comm_type, kind, op, comm_id, msg_size_bytes, exec_us, busbw_gbs,"
        + " " + b.exponent("msg_size_bytes") + " AS size_exp"
        + " FROM records WHERE " + options.includedSql() + ")"
        + " GROUP BY 1, 2, 3, 4 ORDER BY comm_type, kind, op, bucket";
    return engine.query(sql, r -> {
      long bucket = r.getLong("bucket");
      double[] e = Rows.doubles(r, "exec_q", 3);
      double[] q = Rows.doubles(r, "bw_q", BUSBW_QUANTILES.length);
      return new ClassSummary(r.getString("comm_type"), r.getString("kind"), r.getString("op"),
          bucket, b.bucketLabel(bucket), r.getLong("n"), r.getLong("comms"),
          r.getLong("min_size"), r.getLong("max_size"), r.getLong("total_bytes"),
          Rows.doubleOrNaN(r, "exec_min"), e[0], e[1], e[2], Rows.doubleOrNaN(r, "exec_max"),
          Rows.doubleOrNaN(r, "exec_mean"), Rows.doubleOrNaN(r, "bw_min"), q[0], q[1], q[2],
          q[3], q[4], q[5], q[6], Rows.doubleOrNaN(r, "bw_max"), Rows.doubleOrNaN(r, "bw_mean"));
    });
  }

  /**
   * Per communicator; straggler fields come from {@code skews} where present. Records whose
   * identity is implausible ({@link Exclusion#INVALID_IDENTITY}) are in no communicator's or
   * rank's row: they are counted in the overview only.
   */
  public List<CommunicatorSummary> communicators(Map<String, CommunicatorSkew> skews)
      throws SQLException {
    // Holistic aggregates (percentiles) run over the used records only, in their own query: a
    // FILTER clause on them is far slower than a WHERE.
    Map<String, double[]> perf = new java.util.HashMap<>();
    engine.query("SELECT comm_id, sum(exec_us) / 1000 AS exec_total_ms,"
        + " " + d.quantiles("exec_us", 0.5, 0.99) + " AS exec_q,"
        + " " + d.quantile("busbw_gbs", 0.5) + " AS bw_p50"
        + " FROM records WHERE " + options.includedSql() + " GROUP BY comm_id", r -> {
          double[] e = Rows.doubles(r, "exec_q", 2);
          return perf.put(r.getString("comm_id"), new double[] {r.getDouble("exec_total_ms"),
              e[0], e[1], Rows.doubleOrNaN(r, "bw_p50")});
        });
    String sql = "SELECT comm_id, any_value(comm_name) AS comm_name,"
        + " any_value(comm_type) AS comm_type, max(n_ranks) AS n_ranks, max(nnodes) AS nnodes,"
        + " count(DISTINCT rank) AS ranks_seen, count(DISTINCT hostname) AS hosts,"
        + " " + RecordGroups.count("n", null) + " AS n,"
        + " " + RecordGroups.count("n", "kind = 'coll'") + " AS colls,"
        + " " + RecordGroups.count("n", "kind = 'p2p'") + " AS p2ps,"
        + " " + d.sortedDistinctList("op") + " AS ops,"
        + " " + totalBytes() + " AS total_bytes,"
        + " min(first_us) AS first_us, max(last_us) AS last_us"
        + " FROM " + groups.table() + " WHERE " + Exclusion.identifiedSql() + " GROUP BY comm_id";
    List<CommunicatorSummary> out = engine.query(sql, r -> {
      double[] p = perf.getOrDefault(r.getString("comm_id"),
          new double[] {0, Double.NaN, Double.NaN, Double.NaN});
      CommunicatorSkew s = skews.get(r.getString("comm_id"));
      return new CommunicatorSummary(r.getString("comm_id"), r.getString("comm_name"),
          r.getString("comm_type"), r.getInt("n_ranks"), r.getInt("nnodes"),
          r.getLong("ranks_seen"), r.getLong("hosts"), r.getLong("n"), r.getLong("colls"),
          r.getLong("p2ps"), r.getString("ops"), Rows.longOr0(r, "total_bytes"), p[0],
          nanToNull(p[1]), nanToNull(p[2]), nanToNull(p[3]), Rows.longOrNull(r, "first_us"),
          Rows.longOrNull(r, "last_us"), s == null ? null : s.aligned(),
          s == null ? null : s.late(), s == null ? null : s.skewP50Us(),
          s == null ? null : s.skewP99Us(), s == null ? null : s.topLateRank(),
          s == null ? null : s.topLateShare());
    });
    List<CommunicatorSummary> sorted = new ArrayList<>(out);
    sorted.sort(Comparator.comparingDouble(CommunicatorSummary::execTotalMs).reversed()
        .thenComparing(CommunicatorSummary::commId));
    return sorted;
  }

  /** Per communicator rank. */
  public List<RankSummary> ranks() throws SQLException {
    Map<String, Object[]> perf = new java.util.HashMap<>();
    engine.query("SELECT comm_id, rank, count(*) AS used, sum(exec_us) / 1000 AS exec_total_ms,"
        + " " + d.quantiles("exec_us", 0.5, 0.9, 0.99) + " AS exec_q, avg(exec_us) AS exec_mean,"
        + " " + d.quantile("busbw_gbs", 0.5) + " AS bw_p50"
        + " FROM records WHERE " + options.includedSql() + " GROUP BY comm_id, rank", r -> {
          double[] e = Rows.doubles(r, "exec_q", 3);
          return perf.put(key(r.getString("comm_id"), r.getInt("rank")), new Object[] {
              r.getLong("used"), r.getDouble("exec_total_ms"), e,
              Rows.doubleOrNull(r, "exec_mean"), Rows.doubleOrNull(r, "bw_p50")});
        });
    String sql = "SELECT comm_id, any_value(comm_name) AS comm_name,"
        + " any_value(comm_type) AS comm_type, rank, any_value(hostname) AS hostname,"
        + " any_value(pid) AS pid, " + RecordGroups.count("n", null) + " AS n,"
        + " " + totalBytes() + " AS total_bytes"
        + " FROM " + groups.table() + " WHERE " + Exclusion.identifiedSql()
        + " GROUP BY comm_id, rank ORDER BY comm_id, rank";
    return engine.query(sql, r -> {
      Object[] p = perf.get(key(r.getString("comm_id"), r.getInt("rank")));
      double[] e = p == null ? new double[] {Double.NaN, Double.NaN, Double.NaN}
          : (double[]) p[2];
      return new RankSummary(r.getString("comm_id"), r.getString("comm_name"),
          r.getString("comm_type"), r.getInt("rank"), r.getString("hostname"),
          Rows.longOrNull(r, "pid"), r.getLong("n"), p == null ? 0 : (Long) p[0],
          Rows.longOr0(r, "total_bytes"), p == null ? 0 : (Double) p[1], nanToNull(e[0]),
          nanToNull(e[1]), nanToNull(e[2]), p == null ? null : (Double) p[3],
          p == null ? null : (Double) p[4]);
    });
  }

  private static String key(String commId, int rank) {
    return commId + '\u0000' + rank;
  }

  /**
   * Execution-time histograms of the busiest groups: {@value #HISTOGRAM_BINS} equal bins from
   * the group's minimum to its 99th percentile, and one bin above for the tail.
   */
  public List<Histogram> execHistograms(List<ClassSummary> summaries, int topGroups)
      throws SQLException {
    List<ClassSummary> top = summaries.stream()
        .filter(s -> s.records() >= 2 && s.execP99Us() > s.execMinUs())
        .sorted(Comparator.comparingLong(ClassSummary::records).reversed()
            .thenComparing(ClassSummary::commType).thenComparing(ClassSummary::op))
        .limit(topGroups).toList();
    if (top.isEmpty()) {
      return List.of();
    }
    SizeBucketing b = options.sizeBucketing();
    StringBuilder chosen = new StringBuilder();
    for (int i = 0; i < top.size(); i++) {
      ClassSummary s = top.get(i);
      chosen.append(i == 0 ? "" : " UNION ALL ").append(String.format(Locale.ROOT,
          "SELECT %d AS i, %s AS ct, %s AS kind, %s AS op, CAST(%d AS BIGINT) AS bucket,"
          + " CAST(%s AS DOUBLE) AS lo, CAST(%s AS DOUBLE) AS width", i,
          d.literal(s.commType()), d.literal(s.kind()), d.literal(s.op()), s.sizeBucketBytes(),
          num(s.execMinUs()), num((s.execP99Us() - s.execMinUs()) / HISTOGRAM_BINS)));
    }
    engine.createSmallTable("hist_groups", chosen.toString());
    // A hash join on the class's key, the size checked against the bucket's bounds by
    // comparisons (no logarithm a row).
    // The bin is bounded before it is made an integer: a record far in the tail divided by a
    // narrow bin width is beyond any integer type.
    String sql = "SELECT g.i AS i, CAST(least(floor((r.exec_us - g.lo) / g.width), "
        + HISTOGRAM_BINS + ") AS INTEGER) AS bin, count(*) AS n"
        + " FROM (SELECT comm_type, kind, op, msg_size_bytes, exec_us"
        + " FROM records WHERE " + options.includedSql() + ") r JOIN hist_groups g"
        + " ON r.comm_type = g.ct AND r.kind = g.kind AND r.op = g.op"
        + " AND " + b.containsSql("g.bucket", "r.msg_size_bytes")
        + " GROUP BY 1, 2 ORDER BY i, bin";
    long[][] counts = new long[top.size()][HISTOGRAM_BINS + 1];
    engine.query(sql, r -> {
      int bin = Math.max(0, r.getInt("bin"));
      counts[r.getInt("i")][bin] += r.getLong("n");
      return null;
    });
    List<Histogram> out = new ArrayList<>();
    for (int i = 0; i < top.size(); i++) {
      ClassSummary s = top.get(i);
      double width = (s.execP99Us() - s.execMinUs()) / HISTOGRAM_BINS;
      List<Histogram.Bin> bins = new ArrayList<>();
      long total = 0;
      for (int k = 0; k <= HISTOGRAM_BINS; k++) {
        double lo = s.execMinUs() + k * width;
        double hi = k == HISTOGRAM_BINS ? Double.POSITIVE_INFINITY : lo + width;
        bins.add(new Histogram.Bin(lo, hi, counts[i][k]));
        total += counts[i][k];
      }
      out.add(new Histogram(s.commType() + " · " + s.op() + " · " + s.sizeBucket(),
          "µs", bins, total, false));
    }
    return out;
  }

  /** The sum of the records' message sizes, capped at the largest BIGINT. */
  private String recordBytes() {
    return "CAST(least(" + d.wideSum("msg_size_bytes") + ", 9223372036854775807) AS BIGINT)";
  }

  /** The sum of message sizes over groups of {@link RecordGroups}, capped at the largest BIGINT. */
  private static String totalBytes() {
    return "CAST(least(sum(bytes), 9223372036854775807) AS BIGINT)";
  }

  static Double nanToNull(double v) {
    return Double.isNaN(v) ? null : v;
  }

  static String num(double v) {
    return Double.isFinite(v) ? Double.toString(v) : "NULL";
  }

}
