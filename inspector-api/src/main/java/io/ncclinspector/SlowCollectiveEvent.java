package io.ncclinspector;

import java.util.Locale;
import java.util.Objects;

/**
 * A collective that ran slow against what is normal for its class (see
 * {@link SlowCollectiveDetection} for the rule).
 *
 * @param record the slow operation
 * @param baseline what was normal for its class before this record
 * @param reason which rule called it slow
 * @param kind what kind of slowness the record shows, where its timestamps tell
 * @param rateLimited whether the rate limit held it back from listeners, which hear of it only as
 *     part of a {@link SlowCollectiveSummary}; listeners never get such an event, exporters get
 *     every slow collective with this set accordingly
 */
public record SlowCollectiveEvent(OperationRecord record, Baseline baseline, Reason reason, Kind kind,
    boolean rateLimited) implements InspectorEvent {

  public SlowCollectiveEvent {
    Objects.requireNonNull(record, "record");
    Objects.requireNonNull(baseline, "baseline");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(kind, "kind");
  }

  /** A slow collective not (yet) held back by the rate limit. */
  public SlowCollectiveEvent(OperationRecord record, Baseline baseline, Reason reason, Kind kind) {
    this(record, baseline, reason, kind, false);
  }

  /** This event as held back by the rate limit. */
  public SlowCollectiveEvent asRateLimited() {
    return new SlowCollectiveEvent(record, baseline, reason, kind, true);
  }

  @Override
  public CommunicatorInfo communicator() {
    return record.communicator();
  }

  @Override
  public void deliverTo(InspectorListener listener) {
    listener.slowCollective(this);
  }

  /** Which rule called a record slow. */
  public enum Reason {
    /** At least {@code factor} times its class's normal upper bound, and {@code minExcess} over it. */
    BEYOND_CLASS_RANGE,
    /**
     * Its class was still warming up; the record went as far beyond what the established classes
     * of the same operation in its communicator bound it to (scaled by message size).
     */
    BEYOND_RELATED_CLASSES,
    /** Over the configured absolute threshold. */
    ABSOLUTE_THRESHOLD
  }

  /**
   * What a slow record's timestamps show. The GPU clock is not the host's, so the delay from
   * enqueue to GPU start is only ever compared with its class's own recent values.
   */
  public enum Kind {
    /**
     * The kernel's channels started together and as soon after the enqueue as usual, then took
     * long: this GPU was ready and the time went into the collective itself — typically waiting
     * for a peer rank that arrived late (look at the other ranks: {@code nccl-inspector report}
     * lists stragglers). A link that slowed down for every rank looks the same from one rank;
     * then every rank reports it at the same time. On a network transport the network breakdown
     * decides instead: the wait for a peer's first data grew by at least half of the extra time,
     * and {@link SlowCollectiveEvent#waitedForPeer()} names the peer.
     */
    WAITING_FOR_PEERS,
    /**
     * The channels did not run together: their starts were spread apart far more than usual for
     * the class, by at least half of the extra time. The transfer was stretched on this GPU —
     * channels waiting for multiprocessors held by other kernels, or held up on some channels.
     * On a network transport: the network time grew by at least half of the extra time while
     * neither the wait for the peers' first data nor for the own GPU's did — the transfer itself.
     */
    SLOW_TRANSFER,
    /**
     * On a network transport: this rank's own proxy thread was slow. NCCL's proxy thread took on
     * average at least 100 µs per step between starting a step and posting it, a window in which
     * NCCL waits for nothing (normally 2–7 µs; at most 33 µs in the recorded runs with a late rank
     * or a busy GPU), and that posting time adds up to at least a tenth of the network time
     * ({@link NetworkBreakdown.StepWaits#proxyLagNanos()}). Judged on the record's own figures,
     * not against its class: a proxy thread slowed for the whole run makes every collective of the
     * class slow alike. The peers of such a rank see it as {@link #WAITING_FOR_PEERS} naming this
     * rank; {@link SlowCollectiveEvent#slowProxyRank()} names the rank.
     */
    PROXY_THREAD_SLOW,
    /**
     * The record does not tell: no GPU timestamps (CPU-timed) or some channels left out (NCCL's
     * kernel-channel desync), too few recent samples of the class, or the kernel started later
     * after its enqueue than usual (queued behind earlier work), which mixes both stories.
     */
    UNKNOWN;

    /** Lower case with spaces, for messages: {@code waiting for peers}. */
    public String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }
  }

  /**
   * What was normal for the record's class.
   *
   * @param operationClass the class
   * @param medianNanos median execution time of the class's window (0 when judged against
   *     related classes or only by the absolute threshold)
   * @param highNanos the normal upper bound the record was compared with: its class's robust 99th
   *     percentile, or the bound derived from related classes (0 when there was none)
   * @param thresholdNanos the execution time from which a record of the class is slow (the
   *     absolute threshold for {@link Reason#ABSOLUTE_THRESHOLD})
   * @param samples samples in the class's window
   */
  public record Baseline(OperationClass operationClass, long medianNanos, long highNanos, long thresholdNanos,
      int samples) {}

  /** How many times the normal upper bound this record took (infinite when there was none). */
  public double ratio() {
    return baseline.highNanos() <= 0 ? Double.POSITIVE_INFINITY
        : (double) record.timing().executionNanos() / baseline.highNanos();
  }

  /** One line for a log: what, where, how slow, against what, and the kind. */
  public String describe() {
    OperationRecord r = record;
    String against = reason != Reason.ABSOLUTE_THRESHOLD && baseline.highNanos() > 0
        ? String.format(Locale.ROOT, "%.1fx the normal bound of %s (%s%s, %d samples)", ratio(),
            reason == Reason.BEYOND_RELATED_CLASSES ? "related classes" : "its class",
            Durations.micros(baseline.highNanos()),
            baseline.medianNanos() > 0 ? ", median " + Durations.micros(baseline.medianNanos()) : "",
            baseline.samples())
        : "over the absolute threshold of " + Durations.micros(baseline.thresholdNanos());
    return String.format(Locale.ROOT, "slow %s #%d (%s) on communicator %s took %s, %s; %s", r.operation(),
        r.sequence(), baseline.operationClass().label(), r.communicator().idHex(),
        Durations.micros(r.timing().executionNanos()), against,
        kindDetail());
  }

  private String kindDetail() {
    OperationRecord r = record;
    if (waitedForPeer() >= 0) {
      return kind.label() + " (rank " + waitedForPeer() + ", " + Durations.micros(r.network().receiveWaitNanos())
          + " for its first data)";
    }
    if (slowProxyRank() >= 0) {
      NetworkBreakdown.StepWaits w = r.network().waits();
      return kind.label() + " (rank " + slowProxyRank() + "'s own: " + Durations.micros(w.proxyLagNanos())
          + " posting " + w.steps() + " steps of its " + Durations.micros(r.network().networkNanos())
          + " on the network)";
    }
    return kind.label();
  }

  /**
   * The rank whose proxy thread was slow, for a {@link Kind#PROXY_THREAD_SLOW} record: the
   * record's own rank (the evidence is its own proxy thread's); -1 otherwise.
   */
  public int slowProxyRank() {
    return kind == Kind.PROXY_THREAD_SLOW ? record.communicator().rank() : -1;
  }

  /**
   * The peer this rank waited for, where the record's network breakdown names it (a
   * {@link Kind#WAITING_FOR_PEERS} record on a network transport: the peer whose first data came
   * last); -1 otherwise.
   */
  public int waitedForPeer() {
    return kind == Kind.WAITING_FOR_PEERS && record.network().present() ? record.network().slowestPeer() : -1;
  }
}
