package io.ncclinspector.report.analysis;

import io.ncclinspector.report.engine.SqlDialect;
import io.ncclinspector.report.engine.SqlEngine;
import io.ncclinspector.report.model.Exclusion;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Lines up the records of each collective from all its ranks — same communicator, operation and
 * sequence number, NCCL's own per-communicator, per-operation counter — and finds who arrived
 * last.
 *
 * <p>Arrival is the collective's earliest GPU channel start on each rank ({@code
 * coll_gpu_start_ns}). Execution time is deliberately not the criterion: in a blocking
 * collective every rank waits inside the kernel for the last one to arrive, so the late rank has
 * the <em>shortest</em> execution time and its victims the longest. Ranking ranks by execution
 * time blames the victims; ranking them by arrival finds the culprit.
 *
 * <p>A collective is held up by its last rank when that rank started at least the late threshold
 * after the mean start of the other ranks. Per rank, the analysis counts how often that happened
 * and the delay it caused (last start − mean start of the others), and tests whether the rank is
 * last more often than chance: if nobody were slow, each late collective's last rank would be any
 * of the n ranks with probability 1/n. A rank is a <em>suspect</em> when its count of late
 * collectives is at least {@value #SUSPECT_Z} standard deviations above that expectation
 * (binomial), at least {@value #SUSPECT_MIN_LATE} collectives, and at least
 * {@value #SUSPECT_MIN_SHARE} of the collectives it took part in.
 *
 * <p>Cost: one aggregation over all records builds a small per-file table (which also detects
 * duplicated logs); one pass groups the records into collectives, keyed by small integers;
 * clock offsets and mean arrivals come from a sample. Everything else runs on those small
 * tables.
 *
 * <p>The SQL is the same for every engine; {@link SqlDialect} spells the few parts that differ.
 * Where ranks tie (the same arrival to the nanosecond), the higher rank counts as the later one,
 * so that every engine names the same rank.
 */
public final class StragglerAnalysis {
  static final double SUSPECT_Z = 4.0;
  static final long SUSPECT_MIN_LATE = 5;
  static final double SUSPECT_MIN_SHARE = 0.01;
  /** Collectives needed to trust a rank's clock-offset estimate. */
  static final long MIN_OFFSET_SAMPLES = 8;
  /** Collectives per communicator and operation used for clock offsets and mean arrival. */
  static final long SAMPLE_PER_OPERATION = 2000;
  private static final List<String> SYMMETRIC = List.of("AllReduce", "AllGather",
      "ReduceScatter", "AlltoAll");
  private static final int DELAY_HISTOGRAM_COMMS = 4;

  /**
   * Which records take part: collectives of multi-rank communicators with a GPU start, whose
   * identity and times are plausible ({@link Exclusion#alignableSql}).
   */
  private static String sourceFilter(String alias) {
    String a = alias.isEmpty() ? "" : alias + ".";
    return a + "kind = 'coll' AND " + a + "gpu_start_ns > 0 AND " + a + "n_ranks > 1 AND "
        + Exclusion.alignableSql(alias);
  }

  private final SqlEngine engine;
  private final SqlDialect d;
  private final AnalysisOptions options;

  public StragglerAnalysis(SqlEngine engine, AnalysisOptions options) {
    this.engine = engine;
    this.d = engine.dialect();
    this.options = options;
  }

  /**
   * Runs the analysis over the relation {@code records}; if {@code collectivesParquet} is not
   * null, every aligned collective is written there (see {@link SqlEngine#writeParquet}).
   */
  public StragglerResult run(Path collectivesParquet) throws SQLException {
    List<String> notes = new ArrayList<>();
    long thresholdNs = Math.round(options.lateThresholdMicros() * 1000);

    long duplicates = defineSource();
    if (duplicates > 0) {
      notes.add(String.format(Locale.ROOT, "%,d duplicate records (the same collective and rank"
          + " in two files, e.g. a log copied and then written on) were counted once in the"
          + " straggler analysis; the summaries and the communicator and rank tables count every"
          + " record read (files of identical content are read once).", duplicates));
    }
    estimateClockOffsets(notes);

    // The one pass over all records: per collective, who arrived when (clock-corrected, in ns
    // after the first start of the communicator's operation). Timestamps are at most 2^62 (see
    // Exclusion), so differences and single sums fit in 64 bits; the sum over the ranks is wide.
    String lastKey = arrivalKey();
    engine.createTable("st_collectives",
        "SELECT k, sn, n_ranks, msg, ranks_aligned, first_ns, last_ns, last_rank, last_exec,"
        + " mean_exec, max_exec, CASE WHEN ranks_aligned >= 2 THEN last_ns - "
        + d.wideDivide("sum_ns - last_ns", "ranks_aligned - 1") + " END AS delay_ns"
        + " FROM (SELECT s.k, s.sn, max(s.n_ranks) AS n_ranks, max(s.msg) AS msg,"
        + " count(*) AS ranks_aligned, min(s.arr) AS first_ns, max(s.arr) AS last_ns,"
        + " " + d.wideSum("s.arr") + " AS sum_ns, max_by(s.rank, " + lastKey + ") AS last_rank,"
        + " max_by(s.exec_us, " + lastKey + ") AS last_exec, avg(s.exec_us) AS mean_exec,"
        + " max(s.exec_us) AS max_exec"
        + " FROM (SELECT a.k, a.sn, a.rank, a.n_ranks, a.msg, a.exec_us,"
        + "   a.start_ns - CAST(round(coalesce(o.offset_ns, 0)) AS BIGINT) AS arr"
        + "   FROM st_source a LEFT JOIN st_offsets o ON a.k = o.k AND a.rank = o.rank"
        + "   AND o.applied) s"
        + " GROUP BY s.k, s.sn) c");

    long[] counts = engine.query("SELECT count(*) FILTER (WHERE ranks_aligned >= 2) AS n,"
        + " count(*) FILTER (WHERE delay_ns >= " + thresholdNs + ") AS late,"
        + " count(*) FILTER (WHERE ranks_aligned >= 2 AND ranks_aligned < n_ranks) AS incomplete"
        + " FROM st_collectives",
        r -> new long[] {r.getLong("n"), r.getLong("late"), r.getLong("incomplete")}).get(0);
    if (counts[0] == 0) {
      notes.add(explainNothingAligned());
    }

    if (collectivesParquet != null && counts[0] > 0) {
      engine.writeParquet("SELECT k.comm_id, i.comm_name, k.op, c.sn, c.n_ranks,"
          + " c.ranks_aligned, c.msg AS msg_size_bytes, k.base_ns + c.first_ns AS first_start_ns,"
          + " " + micros("c.last_ns - c.first_ns") + " AS skew_us, " + micros("c.delay_ns")
          + " AS delay_us, c.last_rank, i.hostname AS last_hostname, i.pid AS last_pid,"
          + " c.last_exec AS last_exec_us, c.mean_exec AS mean_exec_us, c.max_exec AS max_exec_us"
          + " FROM st_collectives c JOIN st_keys k ON c.k = k.k"
          + " LEFT JOIN st_rank_info i ON k.comm_id = i.comm_id AND c.last_rank = i.rank"
          + " WHERE c.ranks_aligned >= 2", collectivesParquet);
    }

    List<RankLateness> ranks = rankLateness(thresholdNs);
    List<ProcessLateness> processes = processLateness(ranks);
    List<CommunicatorSkew> comms = communicatorSkews(thresholdNs, ranks);
    List<CollectiveSkew> worst = worst();
    Map<String, Histogram> histograms = delayHistograms(comms);
    return new StragglerResult(options.clockSync(), options.lateThresholdMicros(), counts[0],
        counts[1], counts[2], duplicates, ranks, processes, comms, worst, histograms, notes);
  }

  /**
   * The value whose largest marks a collective's last rank: its arrival, then its rank among
   * ties. Packed into one BIGINT ({@code arr * 2^bits + rank}) where every arrival and rank fits
   * (the grouping pass is about an eighth cheaper on DuckDB than with {@link SqlDialect#pair}'s
   * 128-bit value), otherwise the dialect's pair; both order alike.
   */
  private String arrivalKey() throws SQLException {
    int bits = engine.query("SELECT coalesce(max(f.last_start - k.base_ns), 0) AS span,"
        + " coalesce(min(f.rank), 0) AS lo, coalesce(max(f.rank), 0) AS hi,"
        + " (SELECT coalesce(max(abs(offset_ns)), 0) FROM st_offsets WHERE applied) AS max_offset"
        + " FROM st_files f JOIN st_keys k ON f.comm_id = k.comm_id AND f.op = k.op",
        r -> packedRankBits(r.getLong("span"), r.getDouble("max_offset"), r.getLong("lo"),
            r.getLong("hi"))).get(0);
    return bits < 0 ? d.pair("s.arr", "s.rank") : "(s.arr * " + (1L << bits) + " + s.rank)";
  }

  /**
   * How many low bits the rank takes in a packed arrival key, or -1 where the key would not fit:
   * arrivals lie within {@code spanNs} of their operation's first start, moved by a clock
   * offset of at most {@code maxOffsetNs} (rounded), and ranks from {@code minRank} to
   * {@code maxRank}. A packed key stays below 2^62 in magnitude.
   */
  static int packedRankBits(long spanNs, double maxOffsetNs, long minRank, long maxRank) {
    if (spanNs < 0 || minRank < 0 || maxRank < minRank || !(maxOffsetNs >= 0)
        || maxOffsetNs >= 0x1p61) {
      return -1;
    }
    int bits = Math.max(1, 64 - Long.numberOfLeadingZeros(maxRank));
    if (bits > 30) {
      return -1;
    }
    long bound = spanNs + (long) Math.ceil(maxOffsetNs) + 1; // both below 2^62: no overflow
    return bound <= (1L << (62 - bits)) ? bits : -1;
  }

  /** A nanosecond BIGINT expression in microseconds, as DOUBLE (also for the other analyses). */
  static String micros(String nanos) {
    return "CAST(" + nanos + " AS DOUBLE) / 1000";
  }

  /**
   * Builds the small tables and {@code st_source}, one row per (collective, rank), and returns
   * how many duplicate records it had to fold.
   *
   * <ul>
   *   <li>{@code st_files}: per communicator, operation, rank and source file: sequence-number
   *       range, record count, execution-time sum, earliest and latest start, and who the rank
   *       is.
   *   <li>{@code st_keys}: one small integer {@code k} per (communicator, operation), with the
   *       earliest start as time base, the communicator's earliest start, and the sampling
   *       stride: grouping millions of records by integers is much cheaper than by strings.
   *   <li>{@code st_rank_info}: per communicator rank.
   * </ul>
   *
   * Duplicates only arise when two files hold overlapping records of the same rank (a log
   * copied or read twice); only then does the de-duplicating aggregation run.
   */
  private long defineSource() throws SQLException {
    engine.createSmallTable("st_files", "SELECT comm_id, op, rank,"
        + " source_file, min(sn) AS lo, max(sn) AS hi, count(*) AS n, sum(exec_us) AS exec_sum,"
        + " min(gpu_start_ns) AS first_start, max(gpu_start_ns) AS last_start,"
        + " any_value(n_ranks) AS n_ranks,"
        + " any_value(comm_name) AS comm_name, any_value(comm_type) AS comm_type,"
        + " any_value(hostname) AS hostname, any_value(pid) AS pid"
        + " FROM records WHERE " + sourceFilter("") + " GROUP BY comm_id, op, rank, source_file");
    engine.createSmallTable("st_keys", "SELECT k, comm_id, op, base_ns, stride,"
        + " min(base_ns) OVER (PARTITION BY comm_id) AS comm_base FROM (SELECT"
        + " CAST(row_number() OVER (ORDER BY comm_id, op) AS INTEGER) AS k, comm_id, op,"
        + " min(first_start) AS base_ns,"
        + " greatest(1, " + d.integerDivide("max(hi) + 1", Long.toString(SAMPLE_PER_OPERATION))
        + ") AS stride FROM st_files GROUP BY comm_id, op) g");
    engine.createSmallTable("st_rank_info", "SELECT comm_id, rank,"
        + " any_value(comm_name) AS comm_name, any_value(comm_type) AS comm_type,"
        + " any_value(hostname) AS hostname, any_value(pid) AS pid, sum(n) AS records,"
        + " sum(exec_sum) / sum(n) AS exec_mean FROM st_files GROUP BY comm_id, rank");
    long overlapping = engine.query("SELECT count(*) AS n FROM st_files a JOIN st_files b"
        + " ON a.comm_id = b.comm_id AND a.op = b.op AND a.rank = b.rank"
        + " AND a.source_file < b.source_file AND a.lo <= b.hi AND b.lo <= a.hi",
        r -> r.getLong("n")).get(0);
    String rows = "SELECT k.k, r.sn, r.rank, r.n_ranks, r.gpu_start_ns - k.base_ns AS start_ns,"
        + " r.gpu_start_ns - k.base_ns + coalesce(r.gpu_span_ns,"
        + " CAST(round(r.exec_us * 1000) AS BIGINT)) AS end_ns, r.exec_us,"
        + " r.msg_size_bytes AS msg, k.stride"
        + " FROM records r JOIN st_keys k ON r.comm_id = k.comm_id AND r.op = k.op"
        + " WHERE " + sourceFilter("r");
    if (overlapping == 0) {
      engine.createView("st_source", rows);
      return 0;
    }
    engine.createTable("st_source", "SELECT k, sn, rank,"
        + " max(n_ranks) AS n_ranks, min(start_ns) AS start_ns,"
        + " min_by(end_ns, " + d.pair("start_ns", "end_ns") + ") AS end_ns,"
        + " min_by(exec_us, " + d.pair("start_ns", "end_ns") + ") AS exec_us, max(msg) AS msg,"
        + " any_value(stride) AS stride, count(*) AS copies FROM (" + rows + ") r"
        + " GROUP BY k, sn, rank");
    return engine.query("SELECT coalesce(sum(copies - 1), 0) AS d FROM st_source",
        r -> r.getLong("d")).get(0);
  }

  private String explainNothingAligned() throws SQLException {
    long[] c = engine.query("SELECT count(*) FILTER (WHERE kind = 'coll') AS colls,"
        + " count(*) FILTER (WHERE kind = 'coll' AND gpu_start_ns > 0) AS timed,"
        + " count(*) FILTER (WHERE kind = 'coll' AND n_ranks > 1) AS multi FROM records",
        r -> new long[] {r.getLong("colls"), r.getLong("timed"), r.getLong("multi")}).get(0);
    if (c[0] == 0) {
      return "No collective records: nothing to line up across ranks.";
    }
    if (c[1] == 0) {
      return "No collective record has a GPU start timestamp (coll_gpu_start_ns). The reference"
          + " Inspector does not write it; the straggler analysis needs this project's logs.";
    }
    if (c[2] == 0) {
      return "All collectives ran on single-rank communicators: there are no peers to compare.";
    }
    return "No collective was found in the logs of two or more of its ranks: give the report the"
        + " logs of all ranks of a job.";
  }

  /**
   * Fills {@code st_offsets(k, comm_id, rank, offset_ns, samples, applied)} and
   * {@code st_arrival(comm_id, rank, mean_arrival_us)}: per rank, the median of (its end − the
   * collective's median end) over symmetric collectives, where ends coincide in true time (see
   * {@link ClockSync#AUTO}), and its mean arrival relative to the collective's median arrival
   * after that correction. Both come from a sample of about {@value #SAMPLE_PER_OPERATION}
   * collectives per communicator and operation (every k-th sequence number): medians of
   * thousands of collectives are as good as medians of millions, at a fraction of the cost.
   * The offset of a rank is per communicator and operation key but the same clock: offsets are
   * estimated per communicator (from all its symmetric operations) and applied to all its keys.
   */
  private void estimateClockOffsets(List<String> notes) throws SQLException {
    // Times relative to the communicator's first start: comparable across its operations, and
    // small enough for any engine's arithmetic.
    engine.createSmallTable("st_sample", "SELECT s.k, s.sn, s.rank,"
        + " s.start_ns + k.base_ns - k.comm_base AS start_c,"
        + " s.end_ns + k.base_ns - k.comm_base AS end_c, k.comm_id,"
        + " k.op FROM st_source s JOIN st_keys k ON s.k = k.k WHERE s.sn % s.stride = 0");
    if (options.clockSync() == ClockSync.NONE) {
      engine.createSmallTable("st_comm_offsets", "SELECT"
          + " CAST(NULL AS STRING) AS comm_id, CAST(NULL AS INTEGER) AS rank,"
          + " CAST(0 AS DOUBLE) AS offset_ns, CAST(0 AS BIGINT) AS samples, false AS applied"
          + " FROM st_keys WHERE false");
    } else {
      engine.createSmallTable("st_comm_offsets",
          "WITH ends AS (SELECT k, sn, " + medianDisc("end_c") + " AS end_med"
          + "   FROM st_sample WHERE op IN " + inList(SYMMETRIC)
          + "   GROUP BY k, sn HAVING count(*) >= 2)"
          + " SELECT a.comm_id, a.rank, percentile_cont(0.5) WITHIN GROUP (ORDER BY"
          + " a.end_c - e.end_med) AS offset_ns,"
          + " count(*) AS samples, count(*) >= " + MIN_OFFSET_SAMPLES + " AS applied"
          + " FROM st_sample a JOIN ends e ON a.k = e.k AND a.sn = e.sn"
          + " GROUP BY a.comm_id, a.rank");
      List<String> big = engine.query("SELECT comm_id, rank, offset_ns FROM st_comm_offsets"
          + " WHERE applied AND abs(offset_ns) >= greatest(" + Math.round(
              options.lateThresholdMicros() * 1000) + ", 1000)"
          + " ORDER BY abs(offset_ns) DESC, comm_id, rank LIMIT 5",
          r -> String.format(Locale.ROOT, "comm %s rank %d %+.1f µs", r.getString("comm_id"),
              r.getInt("rank"), r.getDouble("offset_ns") / 1000));
      if (!big.isEmpty()) {
        notes.add("GPU clocks differ between ranks; estimated offsets were removed before"
            + " comparing arrivals (largest: " + String.join("; ", big) + "). Use --clock-sync"
            + " none to compare raw timestamps.");
      }
    }
    engine.createSmallTable("st_offsets", "SELECT k.k, o.comm_id, o.rank, o.offset_ns, o.samples,"
        + " o.applied FROM st_comm_offsets o JOIN st_keys k ON o.comm_id = k.comm_id");
    engine.createSmallTable("st_arrival",
        "WITH corrected AS (SELECT s.comm_id, s.k, s.sn, s.rank, s.start_c"
        + "   - CAST(round(coalesce(o.offset_ns, 0)) AS BIGINT) AS arr FROM st_sample s"
        + "   LEFT JOIN st_offsets o ON s.k = o.k AND s.rank = o.rank AND o.applied),"
        + " med AS (SELECT k, sn, " + medianDisc("arr") + " AS arr_med FROM corrected"
        + "   GROUP BY k, sn HAVING count(*) >= 2)"
        + " SELECT c.comm_id, c.rank, avg(" + micros("c.arr - m.arr_med") + ") AS mean_arrival_us"
        + " FROM corrected c JOIN med m ON c.k = m.k AND c.sn = m.sn"
        + " GROUP BY c.comm_id, c.rank");
  }

  /** The exact lower median of a BIGINT expression (a value of the group). */
  private static String medianDisc(String expr) {
    return "CAST(percentile_disc(0.5) WITHIN GROUP (ORDER BY " + expr + ") AS BIGINT)";
  }

  private List<RankLateness> rankLateness(long thresholdNs) throws SQLException {
    String late = "c.delay_ns >= " + thresholdNs;
    String sql = "WITH lastly AS (SELECT k.comm_id, c.last_rank AS rank,"
        + " count(*) FILTER (WHERE c.ranks_aligned >= 2) AS last_count,"
        + " count(*) FILTER (WHERE " + late + ") AS late_count,"
        + " count(*) FILTER (WHERE c.ranks_aligned = 1) AS alone,"
        + " avg(" + micros("c.delay_ns") + ") FILTER (WHERE " + late + ") AS delay_mean,"
        + " " + d.quantile(micros("c.delay_ns"), 0.5) + " FILTER (WHERE " + late
        + ") AS delay_p50,"
        + " max(" + micros("c.delay_ns") + ") FILTER (WHERE " + late + ") AS delay_max,"
        + " coalesce(sum(" + micros("c.delay_ns") + ") FILTER (WHERE " + late + "), 0) / 1000"
        + " AS delay_ms FROM st_collectives c JOIN st_keys k ON c.k = k.k"
        + " GROUP BY k.comm_id, c.last_rank),"
        + " joined AS (SELECT i.*, i.records - coalesce(l.alone, 0) AS aligned,"
        + " coalesce(l.last_count, 0) AS last_count, coalesce(l.late_count, 0) AS late_count,"
        + " l.delay_mean, l.delay_p50, l.delay_max, coalesce(l.delay_ms, 0) AS delay_ms,"
        + " a.mean_arrival_us, coalesce(o.offset_ns, 0) AS offset_ns,"
        + " coalesce(o.samples, 0) AS samples, coalesce(o.applied, false) AS applied"
        + " FROM st_rank_info i LEFT JOIN lastly l ON i.comm_id = l.comm_id AND i.rank = l.rank"
        + " LEFT JOIN st_arrival a ON i.comm_id = a.comm_id AND i.rank = a.rank"
        + " LEFT JOIN st_comm_offsets o ON i.comm_id = o.comm_id AND i.rank = o.rank)"
        + " SELECT j.*, sum(j.late_count) OVER (PARTITION BY j.comm_id) AS comm_late,"
        + " count(*) OVER (PARTITION BY j.comm_id) AS ranks_aligned"
        + " FROM joined j WHERE j.aligned > 0"
        + " ORDER BY j.delay_ms DESC, j.late_count DESC, j.comm_id, j.rank";
    return engine.query(sql, r -> {
      long aligned = r.getLong("aligned");
      long lateCount = r.getLong("late_count");
      long commLate = r.getLong("comm_late");
      int n = Math.max(2, r.getInt("ranks_aligned"));
      double share = aligned == 0 ? 0 : (double) lateCount / aligned;
      return new RankLateness(r.getString("comm_id"), r.getString("comm_name"),
          r.getString("comm_type"), r.getInt("rank"), r.getString("hostname"),
          Rows.longOrNull(r, "pid"), aligned, r.getLong("last_count"), lateCount, share,
          Rows.doubleOrNull(r, "delay_mean"), Rows.doubleOrNull(r, "delay_p50"),
          Rows.doubleOrNull(r, "delay_max"), r.getDouble("delay_ms"),
          Rows.doubleOrNull(r, "mean_arrival_us"), Rows.doubleOrNull(r, "exec_mean"),
          r.getBoolean("applied") ? r.getDouble("offset_ns") / 1000 : 0,
          r.getLong("samples"), suspect(lateCount, commLate, n, share));
    });
  }

  /**
   * Whether {@code late} of the communicator's {@code commLate} late collectives is too many to
   * be chance among {@code n} ranks (binomial, p = 1/n).
   */
  static boolean suspect(long late, long commLate, int n, double share) {
    if (late < SUSPECT_MIN_LATE || share < SUSPECT_MIN_SHARE) {
      return false;
    }
    double p = 1.0 / n;
    double expected = commLate * p;
    double sd = Math.sqrt(commLate * p * (1 - p));
    return sd == 0 ? late > expected : (late - expected) / sd >= SUSPECT_Z;
  }

  private static List<ProcessLateness> processLateness(List<RankLateness> ranks) {
    Map<String, List<RankLateness>> byProcess = new LinkedHashMap<>();
    for (RankLateness r : ranks) {
      byProcess.computeIfAbsent(r.hostname() + "\u0000" + r.pid(), k -> new ArrayList<>()).add(r);
    }
    List<ProcessLateness> out = new ArrayList<>();
    for (List<RankLateness> rs : byProcess.values()) {
      long aligned = rs.stream().mapToLong(RankLateness::aligned).sum();
      long late = rs.stream().mapToLong(RankLateness::lateCount).sum();
      double delayMs = rs.stream().mapToDouble(RankLateness::delayTotalMs).sum();
      long suspectIn = rs.stream().filter(RankLateness::suspect).count();
      out.add(new ProcessLateness(rs.get(0).hostname(), rs.get(0).pid(), rs.size(), aligned, late,
          aligned == 0 ? 0 : (double) late / aligned, delayMs,
          late == 0 ? null : delayMs * 1000 / late, suspectIn));
    }
    out.sort(Comparator.comparingDouble(ProcessLateness::delayTotalMs).reversed()
        .thenComparing(p -> String.valueOf(p.hostname())).thenComparing(p -> p.pid() == null
            ? Long.MIN_VALUE : p.pid()));
    return out;
  }

  private List<CommunicatorSkew> communicatorSkews(long thresholdNs, List<RankLateness> ranks)
      throws SQLException {
    Map<String, RankLateness> top = new HashMap<>();
    for (RankLateness r : ranks) {
      RankLateness t = top.get(r.commId());
      if (r.lateCount() > 0 && (t == null || r.lateCount() > t.lateCount())) {
        top.put(r.commId(), r);
      }
    }
    return engine.query("SELECT k.comm_id, count(*) AS n,"
        + " count(*) FILTER (WHERE c.delay_ns >= " + thresholdNs + ") AS late,"
        + " " + d.quantiles(micros("c.last_ns - c.first_ns"), 0.5, 0.99) + " AS skew_q,"
        + " " + d.quantile(micros("c.delay_ns"), 0.99) + " AS delay_p99"
        + " FROM st_collectives c JOIN st_keys k ON c.k = k.k WHERE c.ranks_aligned >= 2"
        + " GROUP BY k.comm_id ORDER BY late DESC, k.comm_id", r -> {
          double[] q = Rows.doubles(r, "skew_q", 2);
          RankLateness t = top.get(r.getString("comm_id"));
          return new CommunicatorSkew(r.getString("comm_id"), r.getLong("n"), r.getLong("late"),
              q[0], q[1], r.getDouble("delay_p99"), t == null ? null : t.rank(),
              t == null ? null : t.lateShare());
        });
  }

  /**
   * The most delayed collectives. Their lead (how far the last rank was behind the second to
   * last) needs the individual arrivals again, fetched for these few collectives only.
   */
  private List<CollectiveSkew> worst() throws SQLException {
    if (options.worstCollectives() == 0) {
      return List.of();
    }
    engine.createSmallTable("st_worst", "SELECT c.*, k.comm_id, k.op,"
        + " k.base_ns FROM st_collectives c JOIN st_keys k ON c.k = k.k"
        + " WHERE c.ranks_aligned >= 2 ORDER BY c.delay_ns DESC, k.comm_id, k.op, c.sn"
        + " LIMIT " + options.worstCollectives());
    return engine.query("WITH second AS (SELECT w.k, w.sn, max(s.start_ns"
        + " - CAST(round(coalesce(o.offset_ns, 0)) AS BIGINT)) AS second_ns"
        + " FROM st_worst w JOIN st_source s ON s.k = w.k AND s.sn = w.sn"
        + " AND s.rank <> w.last_rank"
        + " LEFT JOIN st_offsets o ON s.k = o.k AND s.rank = o.rank AND o.applied"
        + " GROUP BY w.k, w.sn)"
        + " SELECT w.*, s.second_ns, i.comm_name, i.hostname AS last_host, i.pid AS last_pid"
        + " FROM st_worst w LEFT JOIN second s ON w.k = s.k AND w.sn = s.sn"
        + " LEFT JOIN st_rank_info i ON w.comm_id = i.comm_id AND w.last_rank = i.rank"
        + " ORDER BY w.delay_ns DESC, w.comm_id, w.op, w.sn", r -> {
          long last = r.getLong("last_ns");
          Long second = Rows.longOrNull(r, "second_ns");
          return new CollectiveSkew(r.getString("comm_id"), r.getString("comm_name"),
              r.getString("op"), r.getLong("sn"), r.getInt("n_ranks"), r.getLong("ranks_aligned"),
              Rows.longOrNull(r, "msg"), r.getLong("base_ns") + r.getLong("first_ns"),
              (last - r.getLong("first_ns")) / 1000.0, r.getLong("delay_ns") / 1000.0,
              (last - (second == null ? last : second)) / 1000.0, r.getInt("last_rank"),
              r.getString("last_host"), Rows.longOrNull(r, "last_pid"),
              Rows.doubleOrNull(r, "last_exec"), Rows.doubleOrNull(r, "mean_exec"),
              Rows.doubleOrNull(r, "max_exec"));
        });
  }

  /**
   * Delay distributions (last start − mean start of the others) of the communicators with the
   * most late collectives, in logarithmic bins (five per decade from 0.1 µs): noise and a
   * straggler's delays are orders of magnitude apart.
   */
  private Map<String, Histogram> delayHistograms(List<CommunicatorSkew> comms)
      throws SQLException {
    Map<String, Histogram> out = new LinkedHashMap<>();
    List<String> chosen = comms.stream().filter(c -> c.aligned() > 0)
        .limit(DELAY_HISTOGRAM_COMMS).map(CommunicatorSkew::commId).toList();
    if (chosen.isEmpty()) {
      return out;
    }
    Map<String, List<Histogram.Bin>> bins = new LinkedHashMap<>();
    Map<String, long[]> totals = new HashMap<>();
    chosen.forEach(c -> {
      bins.put(c, new ArrayList<>());
      totals.put(c, new long[1]);
    });
    engine.query("SELECT k.comm_id, CAST(floor(log10(greatest(" + micros("c.delay_ns")
        + ", 0.1)) * 5)"
        + " AS INTEGER) AS b, count(*) AS n FROM st_collectives c JOIN st_keys k ON c.k = k.k"
        + " WHERE c.ranks_aligned >= 2 AND k.comm_id IN " + inList(chosen)
        + " GROUP BY 1, 2 ORDER BY 1, 2", r -> {
          int b = r.getInt("b");
          double lo = Math.pow(10, b / 5.0);
          bins.get(r.getString("comm_id")).add(new Histogram.Bin(b <= -5 ? 0 : lo,
              Math.pow(10, (b + 1) / 5.0), r.getLong("n")));
          totals.get(r.getString("comm_id"))[0] += r.getLong("n");
          return null;
        });
    for (String c : chosen) {
      out.put(c, new Histogram("arrival delay, communicator " + c, "µs", fillGaps(bins.get(c)),
          totals.get(c)[0], true));
    }
    return out;
  }

  /** Adds empty bins between the populated ones so that the axis is continuous. */
  private static List<Histogram.Bin> fillGaps(List<Histogram.Bin> bins) {
    List<Histogram.Bin> out = new ArrayList<>();
    for (Histogram.Bin b : bins) {
      if (!out.isEmpty()) {
        Histogram.Bin prev = out.get(out.size() - 1);
        double lo = prev.upper();
        while (lo * 1.0001 < b.lower()) {
          double hi = lo * Math.pow(10, 0.2);
          out.add(new Histogram.Bin(lo, hi, 0));
          lo = hi;
        }
      }
      out.add(b);
    }
    return out;
  }

  private String inList(List<String> values) {
    StringBuilder b = new StringBuilder("(");
    for (int i = 0; i < values.size(); i++) {
      b.append(i == 0 ? "" : ", ").append(d.literal(values.get(i)));
    }
    return b.append(')').toString();
  }
}
