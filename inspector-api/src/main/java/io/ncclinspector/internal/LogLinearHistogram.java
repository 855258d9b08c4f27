package io.ncclinspector.internal;

import io.ncclinspector.Distribution;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A histogram of non-negative longs with one writer and any number of readers, to better than 1%:
 * values below 128 are counted exactly; above, each power of two is split into 128 equal
 * sub-buckets (a bucket's width is at most 1/128 of its values). A power of two gets its counts
 * when its first value comes, so a distribution over a few decades costs a few kilobytes.
 *
 * <p>The writer publishes each count with a release store ({@code lazySet}: one writer, no
 * read-modify-write needed) and the total last; a reader that sees a total sees at least that
 * many counts (acquire loads), so a summary is never ahead of its values. Readers may see values
 * recorded after the total they read: a summary is a consistent lower bound, as good as any
 * concurrent snapshot.
 */
final class LogLinearHistogram {
  private static final int SUB_BITS = 7;
  private static final int SUB = 1 << SUB_BITS;

  /* Index 0: values 0..127 exactly; index e (7..62): values [2^e, 2^(e+1)) in SUB buckets. */
  private final AtomicReferenceArray<AtomicLongArray> ranges = new AtomicReferenceArray<>(64);
  private final AtomicLong total = new AtomicLong();
  private final AtomicLong min = new AtomicLong(Long.MAX_VALUE);
  private final AtomicLong max = new AtomicLong(-1);

  /** The writer only. Negative values count as 0. */
  void record(long value) {
    long v = Math.max(value, 0);
    int range = rangeOf(v);
    AtomicLongArray counts = ranges.get(range);
    if (counts == null) {
      counts = new AtomicLongArray(SUB);
      ranges.set(range, counts); /* volatile: readers see the array once they see its counts */
    }
    int i = indexIn(range, v);
    counts.lazySet(i, counts.get(i) + 1); /* release: one writer, no lost updates */
    if (v < min.get()) {
      min.lazySet(v);
    }
    if (v > max.get()) {
      max.lazySet(v);
    }
    total.lazySet(total.get() + 1); /* last: a reader seeing it sees the count above */
  }

  private static int rangeOf(long v) {
    return v < SUB ? 0 : 63 - Long.numberOfLeadingZeros(v);
  }

  private static int indexIn(int range, long v) {
    return range == 0 ? (int) v : (int) ((v >>> (range - SUB_BITS)) & (SUB - 1));
  }

  /** The lowest value of a bucket. */
  private static long lowest(int range, int index) {
    return range == 0 ? index : (1L << range) + ((long) index << (range - SUB_BITS));
  }

  /** The highest value a bucket holds. */
  private static long highest(int range, int index) {
    return range == 0 ? index : lowest(range, index) + (1L << (range - SUB_BITS)) - 1;
  }

  /** Count, min, mean, p50, p90, p99 and max (each divided by {@code unit}); any thread. */
  Distribution summary(double unit) {
    long n = total.get();
    if (n == 0) {
      return Distribution.EMPTY;
    }
    long at50 = (long) Math.ceil(n * 0.50);
    long at90 = (long) Math.ceil(n * 0.90);
    long at99 = (long) Math.ceil(n * 0.99);
    long seen = 0;
    double sum = 0;
    long p50 = -1, p90 = -1, p99 = -1, last = 0;
    for (int range = 0; range < 64 && seen < n; range++) {
      AtomicLongArray counts = ranges.get(range);
      if (counts == null) {
        continue;
      }
      for (int i = 0; i < SUB && seen < n; i++) {
        long c = Math.min(counts.get(i), n - seen); /* not beyond the total read */
        if (c == 0) {
          continue;
        }
        long high = highest(range, i);
        sum += (lowest(range, i) + high) / 2.0 * c;
        seen += c;
        last = high;
        if (p50 < 0 && seen >= at50) {
          p50 = high;
        }
        if (p90 < 0 && seen >= at90) {
          p90 = high;
        }
        if (p99 < 0 && seen >= at99) {
          p99 = high;
        }
      }
    }
    long hi = Math.min(max.get(), last);
    long lo = Math.min(min.get(), hi);
    return new Distribution(seen, lo / unit, sum / seen / unit, Math.min(p50, hi) / unit, Math.min(p90, hi) / unit,
        Math.min(p99, hi) / unit, hi / unit);
  }
}
