package io.ncclinspector.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class WindowedLogHistogramTest {

  @Test
  void bucketsAreAtMostAnEighthWideAndTheirUpperEdgeBoundsTheirValues() {
    Random rnd = new Random(1);
    int previous = -1;
    for (long v = 0; v < 5_000; v++) {
      int i = WindowedLogHistogram.index(v);
      assertTrue(i >= previous, "monotonic at " + v);
      previous = i;
      assertTrue(WindowedLogHistogram.upperEdge(i) >= v, "edge of " + v);
    }
    for (int k = 0; k < 100_000; k++) {
      long v = 8 + (long) Math.exp(rnd.nextDouble() * Math.log(3.6e12));
      long edge = WindowedLogHistogram.upperEdge(WindowedLogHistogram.index(v));
      assertTrue(edge >= v && edge <= v * 1.125 + 1, v + " -> " + edge);
    }
    assertEquals(WindowedLogHistogram.BUCKETS - 1, WindowedLogHistogram.index(Long.MAX_VALUE), "clamped, not out of range");
    assertEquals(0, WindowedLogHistogram.index(-5), "negative values count as 0");
  }

  @Test
  void ranksCountFromTheLargest() {
    WindowedLogHistogram h = new WindowedLogHistogram(64);
    for (long v : new long[] {5, 1_000, 7, 100_000, 6}) {
      h.add(v, false);
    }
    long[] out = new long[4];
    h.ranksFromTop(1, out);
    assertEquals(WindowedLogHistogram.upperEdge(WindowedLogHistogram.index(100_000)), out[0]);
    assertEquals(WindowedLogHistogram.upperEdge(WindowedLogHistogram.index(1_000)), out[1]);
    assertArrayEquals(new long[] {7, 6}, new long[] {out[2], out[3]});
    h.ranksFromTop(5, out);
    assertArrayEquals(new long[] {5, -1, -1, -1}, out, "fewer samples than ranks");
    assertEquals(7, h.median());
  }

  @Test
  void theWindowKeepsBetweenHalfAndAllOfItsSamplesAndItsFlaggedCounts() {
    WindowedLogHistogram h = new WindowedLogHistogram(16);
    for (int i = 0; i < 8; i++) {
      h.add(1_000_000, i == 0); /* a first generation of large values, one flagged */
    }
    assertEquals(8, h.count());
    assertEquals(1, h.flagged());
    for (int i = 0; i < 7; i++) {
      h.add(10, false);
    }
    assertEquals(15, h.count());
    long[] top = new long[1];
    h.ranksFromTop(1, top);
    assertTrue(top[0] >= 1_000_000, "the older generation still counts");
    h.add(10, false); /* the second generation is full: the first is dropped */
    assertEquals(8, h.count());
    assertEquals(0, h.flagged());
    h.ranksFromTop(1, top);
    assertEquals(10, WindowedLogHistogram.upperEdge(WindowedLogHistogram.index(10)));
    assertTrue(top[0] < 12, "the maximum left with its generation: " + top[0]);
  }
}
