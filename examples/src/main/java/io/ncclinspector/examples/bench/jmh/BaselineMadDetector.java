package io.ncclinspector.examples.bench.jmh;

import io.ncclinspector.OperationClass;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.RecordFlag;
import io.ncclinspector.TimingSource;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * BASELINE for {@link SlowCollectiveBenchmarks} only: the slow-collective detector the inspector had
 * before issue 14 (median and median absolute deviation of a rolling window of 64 per class;
 * slow beyond 8 robust standard deviations and 1.5 times the median, after 20 samples), kept
 * verbatim but for returning a verdict instead of an event. Not used by the library.
 */
final class BaselineMadDetector {
  private static final double MAD_TO_SIGMA = 1.4826;
  private static final int WINDOW = 64;
  private static final int WARMUP = 20;
  private static final double SENSITIVITY = 8.0;
  private static final double MIN_RATIO = 1.5;

  private record Key(long communicatorSerial, OperationClass operationClass) {}

  private final Map<Key, RobustBaseline> baselines = new HashMap<>();

  /** Judges a record (then adds it to its baseline); true if it was slow. */
  boolean observe(OperationRecord r) {
    if (!judgeable(r)) {
      return false;
    }
    OperationClass cls = OperationClass.of(r);
    RobustBaseline b = baselines.computeIfAbsent(new Key(r.communicator().serial(), cls),
        k -> new RobustBaseline(WINDOW));
    long x = r.timing().executionNanos();
    boolean slow = false;
    if (b.size() >= WARMUP) {
      long median = b.median();
      long mad = b.mad();
      double scale = Math.max(MAD_TO_SIGMA * mad, 0.01 * median);
      double score = scale > 0 ? (x - median) / scale : (x > median ? Double.POSITIVE_INFINITY : 0);
      slow = score >= SENSITIVITY && x >= MIN_RATIO * median;
    }
    b.add(x);
    return slow;
  }

  private static boolean judgeable(OperationRecord r) {
    return r.timing().quarantine() == Quarantine.NONE && !r.flags().contains(RecordFlag.INCOMPLETE)
        && r.timing().source() != TimingSource.COLLECTIVE_CPU && r.timing().executionNanos() > 0;
  }

  /** Rolling window with its median and MAD, re-sorted every 8 samples. */
  private static final class RobustBaseline {
    private static final int RECOMPUTE_EVERY = 8;
    private final long[] window;
    private final long[] scratch;
    private int size;
    private int next;
    private int sinceRecompute = RECOMPUTE_EVERY;
    private long median;
    private long mad;

    RobustBaseline(int capacity) {
      window = new long[capacity];
      scratch = new long[capacity];
    }

    void add(long value) {
      window[next] = value;
      next = (next + 1) % window.length;
      if (size < window.length) {
        size++;
      }
      sinceRecompute++;
    }

    int size() {
      return size;
    }

    long median() {
      refresh();
      return median;
    }

    long mad() {
      refresh();
      return mad;
    }

    private void refresh() {
      if (sinceRecompute < RECOMPUTE_EVERY || size == 0) {
        return;
      }
      sinceRecompute = 0;
      System.arraycopy(window, 0, scratch, 0, size);
      Arrays.sort(scratch, 0, size);
      median = middle(scratch, size);
      for (int i = 0; i < size; i++) {
        scratch[i] = Math.abs(window[i] - median);
      }
      Arrays.sort(scratch, 0, size);
      mad = middle(scratch, size);
    }

    private static long middle(long[] sorted, int n) {
      return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
  }
}
