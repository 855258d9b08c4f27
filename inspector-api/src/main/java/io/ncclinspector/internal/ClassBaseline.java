package io.ncclinspector.internal;

import io.ncclinspector.OperationClass;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.TimingSource;
import java.util.Arrays;

/**
 * What is normal for one class of operation in one communicator: a windowed histogram of its
 * execution times with its robust high percentile, and the recent delays from enqueue to GPU start
 * and channel skews that tell kinds of slowness apart. Single writer (the analysis thread).
 */
final class ClassBaseline {
  /** Recent GPU start delays and skews kept to compare a slow record's with. */
  private static final int RECENT = 32;
  /** Recent samples needed before they are compared with. */
  private static final int RECENT_NEEDED = 8;
  /** Extreme values that may be passed over when reading the high percentile. */
  private static final int MAX_PASSED_OVER = 2;
  /** Young windows are re-read at every sample, grown ones every few: a bound a few samples old judges as well. */
  private static final int YOUNG = 128;
  private static final int REFRESH_EVERY = 8;
  /** Slow records in the window that the high percentile discounts. */
  private static final int MAX_DISCOUNTED = 2;

  final OperationClass operationClass;
  final ClassFamily family;
  private final double factor;
  private final WindowedLogHistogram histogram;
  private final long[] ranks = new long[MAX_PASSED_OVER + 2];
  private final long[] startDelays = new long[RECENT];
  private final long[] skews = new long[RECENT];
  private int recent;
  private int recentNext;
  /* Recent network breakdowns (records on a network transport): waits and network time. */
  private final long[] receiveWaits = new long[RECENT];
  private final long[] gpuWaits = new long[RECENT];
  private final long[] networkTimes = new long[RECENT];
  private int recentNet;
  private int recentNetNext;
  private long high;
  private int sinceRefresh = Integer.MAX_VALUE;
  /** The class's first execution times (NCCL's set-up of its connections), and how many were added. */
  private static final int SET_UP = 3;
  private final long[] setUp = new long[SET_UP];
  private long addedSinceFirst;
  private final int window;

  ClassBaseline(OperationClass operationClass, ClassFamily family, int window, double factor) {
    this.operationClass = operationClass;
    this.family = family;
    this.factor = factor;
    this.histogram = new WindowedLogHistogram(window);
    this.window = window;
  }

  /**
   * Adds a record. A slow one counts like any other — a mode that keeps coming back becomes
   * normal — but the high percentile passes over up to two slow ones in the window, and its start
   * delay and skew are not typical.
   */
  void add(OperationRecord r, boolean slow) {
    if (addedSinceFirst < SET_UP) {
      setUp[(int) addedSinceFirst] = r.timing().executionNanos();
    }
    histogram.add(r.timing().executionNanos(), slow);
    addedSinceFirst++;
    if (sinceRefresh != Integer.MAX_VALUE) {
      sinceRefresh++;
    }
    if (!slow && hasGpuShape(r)) {
      startDelays[recentNext] = r.timing().gpuStartNanos() - r.timing().startWallNanos();
      skews[recentNext] = r.timing().gpuSkewNanos();
      recentNext = (recentNext + 1) % RECENT;
      recent = Math.min(recent + 1, RECENT);
    }
    if (!slow && hasNetworkShape(r)) {
      receiveWaits[recentNetNext] = r.network().receiveWaitNanos();
      gpuWaits[recentNetNext] = r.network().sendGpuWaitNanos();
      networkTimes[recentNetNext] = r.network().networkNanos();
      recentNetNext = (recentNetNext + 1) % RECENT;
      recentNet = Math.min(recentNet + 1, RECENT);
    }
  }

  /** Whether enough recent network breakdowns are known to compare a record's with. */
  boolean knowsNetwork() {
    return recentNet >= RECENT_NEEDED;
  }

  long typicalReceiveWait() {
    return medianOf(receiveWaits, recentNet);
  }

  long typicalGpuWait() {
    return medianOf(gpuWaits, recentNet);
  }

  long typicalNetworkTime() {
    return medianOf(networkTimes, recentNet);
  }

  /** A complete network breakdown: its waits and network time mean something. */
  static boolean hasNetworkShape(OperationRecord r) {
    return r.network().present() && r.network().networkNanos() > 0;
  }

  int samples() {
    return histogram.count();
  }

  /**
   * The normal upper bound: the 99th percentile of the window (the largest value for fewer than
   * 100 samples), below up to two slow records in the window, where a value more than
   * {@code factor} times the next below it is passed over, at most twice. Anomalies already
   * reported and one-off extremes that were never judged (a connection set up by a class's first
   * operation) do not make everything after them look normal, while a tail or a mode the class
   * keeps showing is part of its range.
   */
  long high() {
    if (sinceRefresh >= (samples() < YOUNG ? 1 : REFRESH_EVERY)) {
      sinceRefresh = 0;
      int n = samples();
      histogram.ranksFromTop(Math.min(n / 100 + 1 + Math.min(MAX_DISCOUNTED, histogram.flagged()), n), ranks);
      long h = ranks[0];
      int j0 = 0;
      /* A class's first operations carry NCCL's set-up of its connections (on 2 x H200 the first two
         AllReduces of a communicator took 97 and 575 us, the next ones 4-26 us): while they are in
         the window, one of them that is the largest value and more than twice the next is passed
         over, at most MAX_PASSED_OVER of them. */
      while (j0 < MAX_PASSED_OVER && addedSinceFirst <= window && ranks[j0 + 1] > 0
          && ranks[j0] > 2 * ranks[j0 + 1] && isSetUp(ranks[j0])) {
        j0++;
        h = ranks[j0];
      }
      for (int j = j0; j < MAX_PASSED_OVER && ranks[j + 1] > 0 && ranks[j] > factor * ranks[j + 1]; j++) {
        h = ranks[j + 1];
      }
      high = h;
    }
    return high;
  }

  /** Whether a value read from the histogram (12.5 % buckets) is one of the class's first ones. */
  private boolean isSetUp(long value) {
    for (int i = 0; i < Math.min(SET_UP, addedSinceFirst); i++) {
      if (setUp[i] > 0 && Math.abs(setUp[i] - value) <= value / 8) {
        return true;
      }
    }
    return false;
  }

  long median() {
    return histogram.median();
  }

  /** Whether enough recent GPU-timed samples are known to compare start delay and skew with. */
  boolean knowsShape() {
    return recent >= RECENT_NEEDED;
  }

  /** Median recent delay from enqueue (host clock) to GPU start (GPU clock): only comparable within the class. */
  long typicalStartDelay() {
    return medianOf(startDelays, recent);
  }

  long typicalSkew() {
    return medianOf(skews, recent);
  }

  /** GPU-timed by all its channels, with an enqueue time: its start delay and skew mean something. */
  static boolean hasGpuShape(OperationRecord r) {
    return r.timing().source() == TimingSource.KERNEL_GPU && r.channels().desynced() == 0
        && r.timing().gpuStartNanos() > 0 && r.timing().startWallNanos() > 0;
  }

  private static long medianOf(long[] ring, int recent) {
    long[] copy = Arrays.copyOf(ring, recent);
    Arrays.sort(copy);
    return copy.length == 0 ? 0 : copy[(copy.length - 1) / 2];
  }
}
