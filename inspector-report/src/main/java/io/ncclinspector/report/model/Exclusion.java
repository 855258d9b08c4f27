package io.ncclinspector.report.model;

/**
 * Why a record is kept in the Parquet export but left out of the performance figures
 * (percentiles, bandwidth charts). The first reason that applies is recorded, in this order: a
 * record whose identity or times are out of any plausible range is not used anywhere (not in the
 * straggler or point-to-point analyses either), one whose size or bandwidth is implausible only
 * stays out of the performance figures.
 *
 * <p>The bounds are far beyond anything real, so that no real record is excluded, and near enough
 * that the analyses' arithmetic (sums of timestamps over the ranks of a collective, in 64 bits)
 * cannot overflow on what passes them: one absurd record must cost the user that record, never the
 * report.
 */
public enum Exclusion {
  /**
   * The record cannot belong where its header puts it: a negative rank, rank count, node count,
   * peer, sequence number or process id; a rank or peer at or past the rank count, or more nodes
   * than ranks (where the rank count is known: interface v3 gives none); a sequence number past
   * {@link #MAX_PLAUSIBLE_SEQUENCE}.
   */
  INVALID_IDENTITY("invalid_identity"),
  /**
   * A time out of range: an execution time, GPU span or GPU skew below 0 or above {@link
   * #MAX_PLAUSIBLE_DURATION_NS}, or a GPU start or dump timestamp below 0 or above {@link
   * #MAX_PLAUSIBLE_TIMESTAMP_NS}.
   */
  INVALID_TIME("invalid_time"),
  /**
   * The message size is negative or above {@link #MAX_PLAUSIBLE_MESSAGE_BYTES}: the reference
   * Inspector computes sizes near 2^64 for 8-bit integer collectives (NCCL 2.28 names the type
   * "Unknown"), and its bandwidths are derived from that size.
   */
  INVALID_SIZE("invalid_size"),
  /** An algorithm or bus bandwidth below 0 or above {@link #MAX_PLAUSIBLE_BANDWIDTH_GBS}. */
  INVALID_BANDWIDTH("invalid_bandwidth"),
  /** GPU timestamps were unusable: the record is CPU-timed and flagged (this project). */
  QUARANTINED("quarantined"),
  /**
   * No time at all (timing source {@code none}): a call NCCL gave no operation event, recorded from
   * the call (flag {@code not_profiled_by_nccl}, {@code *_untimed_reason}). Counted as an operation,
   * never in a time or bandwidth figure, with {@code --all-timing} too.
   */
  UNTIMED("untimed"),
  /**
   * A point-to-point operation timed by the kernel it shared with the rest of its group (timing
   * source {@code kernel_cupti_group}: an AlltoAll's send whose channels gave no time): the group's
   * GPU time, an upper bound on the operation's own, so its bandwidth would read low. Kept out of the
   * performance figures and the point-to-point analysis, with {@code --all-timing} too.
   */
  GROUP_TIME("group_time"),
  /**
   * Not timed from GPU timestamps ({@code kernel_cpu}, {@code collective_cpu}, {@code ce_cpu}):
   * CPU spans measure enqueueing or host callbacks, not the transfer. Included with
   * {@code --all-timing}. ({@code kernel_cupti}, a kernel's CUPTI record, is a GPU time.)
   */
  CPU_TIMING("cpu_timing");

  /** 1 PiB: no single NCCL message comes close; anything larger is a computation error. */
  public static final long MAX_PLAUSIBLE_MESSAGE_BYTES = 1L << 50;
  /** One day: no operation runs that long (the core quarantines GPU times over an hour). */
  public static final long MAX_PLAUSIBLE_DURATION_NS = 86_400L * 1_000_000_000L;
  /**
   * 2^62 ns after the epoch (the year 2116): the GPU global timer and the host clock count from
   * the epoch; two such values still add up within 64 bits.
   */
  public static final long MAX_PLAUSIBLE_TIMESTAMP_NS = 1L << 62;
  /** 100 TB/s: 50 times any link or memory a GPU has. */
  public static final double MAX_PLAUSIBLE_BANDWIDTH_GBS = 1e5;
  /** 2^62: a sequence number counts operations from 0; more than this is no counter. */
  public static final long MAX_PLAUSIBLE_SEQUENCE = 1L << 62;

  /** The reasons that keep a record out of the straggler and point-to-point analyses. */
  public static final java.util.List<Exclusion> UNALIGNABLE = java.util.List.of(INVALID_IDENTITY,
      INVALID_TIME, QUARANTINED, UNTIMED);

  private final String label;

  Exclusion(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  /**
   * The SQL that gives the first reason that applies to a row of raw columns ({@code r_rank},
   * ...), or null: the export's {@code excluded_reason}.
   */
  public static String sql() {
    String size = "(r_msg_size_raw >= 0 AND r_msg_size_raw <= " + MAX_PLAUSIBLE_MESSAGE_BYTES + ")";
    String identity = "r_rank < 0 OR r_n_ranks < 0 OR r_nnodes < 0 OR r_peer < 0 OR r_sn < 0"
        + " OR r_sn > " + MAX_PLAUSIBLE_SEQUENCE + " OR r_pid < 0 OR (r_n_ranks > 0 AND (r_rank"
        + " >= r_n_ranks OR r_nnodes > r_n_ranks OR r_peer >= r_n_ranks))";
    String time = outside("r_exec_time_us", MAX_PLAUSIBLE_DURATION_NS / 1000)
        + " OR " + outside("r_exec_time_ns", MAX_PLAUSIBLE_DURATION_NS)
        + " OR " + outside("r_gpu_span_ns", MAX_PLAUSIBLE_DURATION_NS)
        + " OR " + outside("r_gpu_skew_ns", MAX_PLAUSIBLE_DURATION_NS)
        + " OR " + outside("r_gpu_start_ns", MAX_PLAUSIBLE_TIMESTAMP_NS)
        + " OR " + outside("r_dump_timestamp_us", MAX_PLAUSIBLE_TIMESTAMP_NS / 1000);
    String bandwidth = "r_algobw_gbs < 0 OR r_algobw_gbs > " + MAX_PLAUSIBLE_BANDWIDTH_GBS
        + " OR r_busbw_gbs < 0 OR r_busbw_gbs > " + MAX_PLAUSIBLE_BANDWIDTH_GBS;
    return "CASE WHEN " + identity + " THEN '" + INVALID_IDENTITY.label + "'"
        + " WHEN " + time + " THEN '" + INVALID_TIME.label + "'"
        + " WHEN NOT " + size + " THEN '" + INVALID_SIZE.label + "'"
        + " WHEN " + bandwidth + " THEN '" + INVALID_BANDWIDTH.label + "'"
        + " WHEN r_quarantine_reason IS NOT NULL OR array_contains(r_flags, 'quarantined') THEN '"
        + QUARANTINED.label + "'"
        + " WHEN r_timing_source = 'none' THEN '" + UNTIMED.label + "'"
        + " WHEN r_timing_source = 'kernel_cupti_group' THEN '" + GROUP_TIME.label + "'"
        + " WHEN r_timing_source NOT IN ('kernel_gpu', 'kernel_cupti') THEN '" + CPU_TIMING.label + "'"
        + " END";
  }

  private static String outside(String column, long max) {
    return column + " < 0 OR " + column + " > " + max;
  }

  /**
   * SQL: the record's identity (rank, counts, peer, sequence number, pid) is plausible, so that it
   * can be counted for its communicator and rank.
   */
  public static String identifiedSql() {
    return "(excluded_reason IS NULL OR excluded_reason <> '" + INVALID_IDENTITY.label + "')";
  }

  /** SQL: a record of these columns may be lined up with other ranks' records. */
  public static String alignableSql(String alias) {
    String a = alias.isEmpty() ? "" : alias + ".";
    StringBuilder in = new StringBuilder();
    for (Exclusion e : UNALIGNABLE) {
      in.append(in.length() == 0 ? "" : ", ").append('\'').append(e.label).append('\'');
    }
    return "(" + a + "excluded_reason IS NULL OR " + a + "excluded_reason NOT IN (" + in + "))";
  }
}
