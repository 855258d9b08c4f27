package io.ncclinspector.internal;

import java.util.Arrays;

/**
 * A rolling window of execution times with its median and median absolute deviation. Single
 * writer (the analysis thread). The order statistics are recomputed every few samples, not at
 * every one: a baseline a handful of samples old judges just as well and costs an eighth.
 */
final class RobustBaseline {
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
