package io.ncclinspector.internal;

import java.util.Arrays;

/**
 * Counts of recent execution times in log-linear buckets (8 per power of two: a bucket is at most
 * 12.5 % wide), over a sliding window of between {@code window / 2} and {@code window} samples:
 * two generations of {@code window / 2} samples each, the older dropped whole when the newer one
 * is full. Adding is a few instructions and allocates nothing; order statistics walk the buckets
 * from the top. Values are reported as the upper edge of their bucket, so estimates err high. It
 * also counts how many of the samples in the window were flagged when added. Single writer (the
 * analysis thread).
 */
final class WindowedLogHistogram {
  private static final int SUB_BITS = 3;
  private static final int SUB_BUCKETS = 1 << SUB_BITS;
  /** Values from 2^43 ns (2.4 hours) on share the last bucket: longer runs are quarantined anyway. */
  private static final int MAX_EXPONENT = 42;
  static final int BUCKETS = (MAX_EXPONENT + 1) << SUB_BITS;

  /** The older generation of a window that has not yet rolled over: read, never written. */
  private static final int[] NONE_YET = new int[BUCKETS];

  private int[] current = new int[BUCKETS];
  /* NONE_YET until the first roll-over: a class seen fewer than window / 2 times needs one array. */
  private int[] previous = NONE_YET;
  private final int generation;
  private int currentCount;
  private int previousCount;
  private int currentFlagged;
  private int previousFlagged;
  /** Highest bucket with a sample in either generation, -1 when empty. */
  private int top = -1;

  WindowedLogHistogram(int window) {
    if (window < 2) {
      throw new IllegalArgumentException("window must be at least 2: " + window);
    }
    this.generation = window / 2;
  }

  void add(long value, boolean flagged) {
    int i = index(value);
    current[i]++;
    if (flagged) {
      currentFlagged++;
    }
    if (i > top) {
      top = i;
    }
    if (++currentCount == generation) {
      int[] dropped = previous;
      previous = current;
      previousCount = currentCount;
      previousFlagged = currentFlagged;
      if (dropped == NONE_YET) {
        dropped = new int[BUCKETS];
      } else {
        Arrays.fill(dropped, 0);
      }
      current = dropped;
      currentCount = 0;
      currentFlagged = 0;
      while (top >= 0 && previous[top] == 0) {
        top--;
      }
    }
  }

  /** Samples in the window. */
  int count() {
    return currentCount + previousCount;
  }

  /** Flagged samples in the window. */
  int flagged() {
    return currentFlagged + previousFlagged;
  }

  /**
   * Fills {@code out[j]} with the value of rank {@code firstRank + j} counted from the largest
   * (rank 1 is the maximum), or -1 where the window holds fewer samples.
   */
  void ranksFromTop(int firstRank, long[] out) {
    Arrays.fill(out, -1);
    int seen = 0;
    int j = 0;
    for (int i = top; i >= 0 && j < out.length; i--) {
      seen += current[i] + previous[i];
      while (j < out.length && firstRank + j <= seen) {
        out[j++] = upperEdge(i);
      }
    }
  }

  /** The median of the window (upper edge of its bucket), 0 when empty. */
  long median() {
    int n = count();
    if (n == 0) {
      return 0;
    }
    int rank = n - (n - 1) / 2; /* from the top: the lower median */
    int seen = 0;
    for (int i = top; i >= 0; i--) {
      seen += current[i] + previous[i];
      if (seen >= rank) {
        return upperEdge(i);
      }
    }
    return 0;
  }

  static int index(long v) {
    if (v < SUB_BUCKETS) {
      return (int) Math.max(v, 0);
    }
    int e = 63 - Long.numberOfLeadingZeros(v);
    if (e > MAX_EXPONENT) {
      return BUCKETS - 1;
    }
    return (e << SUB_BITS) | (int) ((v >>> (e - SUB_BITS)) & (SUB_BUCKETS - 1));
  }

  /** The largest value of bucket {@code i}. */
  static long upperEdge(int i) {
    if (i < SUB_BUCKETS) {
      return i;
    }
    int e = i >>> SUB_BITS;
    int sub = i & (SUB_BUCKETS - 1);
    return ((long) (SUB_BUCKETS + 1 + sub) << (e - SUB_BITS)) - 1;
  }
}
