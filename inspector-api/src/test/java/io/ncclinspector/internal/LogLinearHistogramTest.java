package io.ncclinspector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.Distribution;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class LogLinearHistogramTest {

  private static long exact(long[] sorted, double q) {
    return sorted[(int) Math.ceil(sorted.length * q) - 1];
  }

  private static void within1Percent(double expected, double actual, String what) {
    assertTrue(actual >= expected && actual <= expected * 1.01 + 1e-9, what + ": " + actual + " for " + expected);
  }

  /** Quantiles, min, max and mean of skewed data over eight decades, each within 1% above the exact value. */
  @Test
  void summariesAreWithinOnePercent() {
    Random rnd = new Random(7);
    long[] v = new long[100_000];
    LogLinearHistogram h = new LogLinearHistogram();
    for (int i = 0; i < v.length; i++) {
      v[i] = (long) Math.exp(rnd.nextDouble() * 18); /* 1 .. 6.6e7 */
      h.record(v[i]);
    }
    Arrays.sort(v);
    Distribution d = h.summary(1.0);
    assertEquals(v.length, d.count());
    within1Percent(v[0], d.min(), "min");
    within1Percent(v[v.length - 1], d.max(), "max");
    within1Percent(exact(v, 0.5), d.p50(), "p50");
    within1Percent(exact(v, 0.9), d.p90(), "p90");
    within1Percent(exact(v, 0.99), d.p99(), "p99");
    double mean = Arrays.stream(v).average().orElseThrow();
    assertEquals(mean, d.mean(), mean * 0.01);
    assertEquals(h.summary(1000.0).p50(), d.p50() / 1000.0, 1e-9);
  }

  @Test
  void emptyNegativeAndSmallValues() {
    LogLinearHistogram h = new LogLinearHistogram();
    assertEquals(Distribution.EMPTY, h.summary(1.0));
    h.record(-5);
    h.record(3);
    h.record(127);
    h.record(128);
    Distribution d = h.summary(1.0);
    assertEquals(4, d.count());
    assertEquals(0, d.min());
    assertEquals(128, d.max());
    assertEquals(3, d.p50());
    h.record(Long.MAX_VALUE);
    assertEquals(Long.MAX_VALUE, (long) h.summary(1.0).max(), 1e4);
  }

  /** A reader running beside the writer never sees a summary ahead of its values or out of order. */
  @Test
  void readersBesideTheWriterSeeConsistentSummaries() throws InterruptedException {
    LogLinearHistogram h = new LogLinearHistogram();
    AtomicBoolean done = new AtomicBoolean();
    Thread writer = new Thread(() -> {
      for (long i = 1; i <= 2_000_000; i++) {
        h.record(i % 10_000);
      }
      done.set(true);
    });
    writer.start();
    long lastCount = 0;
    while (!done.get()) {
      Distribution d = h.summary(1.0);
      assertTrue(d.count() >= lastCount, "counts never go back");
      if (d.count() > 0) {
        assertTrue(d.min() <= d.p50() && d.p50() <= d.p90() && d.p90() <= d.p99() && d.p99() <= d.max(), d.toString());
      }
      lastCount = d.count();
    }
    writer.join();
    assertEquals(2_000_000, h.summary(1.0).count());
  }
}
