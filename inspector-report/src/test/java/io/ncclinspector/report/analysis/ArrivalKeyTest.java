package io.ncclinspector.report.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** When the straggler pass packs (arrival, rank) into one BIGINT, and when it must not. */
class ArrivalKeyTest {
  @Test
  void packedWhereEveryKeyStaysBelowTwoToThe62() {
    assertEquals(1, StragglerAnalysis.packedRankBits(0, 0, 0, 0));
    assertEquals(3, StragglerAnalysis.packedRankBits(3_600_000_000_000L, 2e6, 0, 7),
        "an hour's job of eight ranks, offsets of 2 ms");
    assertEquals(17, StragglerAnalysis.packedRankBits((1L << 45) - 1, 0, 0, 100_000));
    assertEquals(17, StragglerAnalysis.packedRankBits((1L << 45) - 3, 1.5, 0, 100_000),
        "the offset counts rounded up");
  }

  @Test
  void wideWhereAKeyCouldOverflowOrARankIsNegative() {
    assertEquals(-1, StragglerAnalysis.packedRankBits(1L << 45, 0, 0, 100_000),
        "arrival * 2^17 would reach 2^62");
    assertEquals(-1, StragglerAnalysis.packedRankBits((1L << 45) - 2, 1.5, 0, 100_000));
    assertEquals(-1, StragglerAnalysis.packedRankBits(1L << 61, 0, 0, 3),
        "StragglerDetectionTest's far collective");
    assertEquals(-1, StragglerAnalysis.packedRankBits(10, 0, -1, 7), "a negative rank");
    assertEquals(-1, StragglerAnalysis.packedRankBits(10, Double.NaN, 0, 7));
    assertEquals(-1, StragglerAnalysis.packedRankBits(10, Double.POSITIVE_INFINITY, 0, 7));
    assertEquals(-1, StragglerAnalysis.packedRankBits(-1, 0, 0, 7));
    assertEquals(-1, StragglerAnalysis.packedRankBits((1L << 62) - 1, 0x1p61 - 1, 0, 1),
        "the largest span and offset: refused, without overflow");
    assertEquals(-1, StragglerAnalysis.packedRankBits(10, 0, 0, Integer.MAX_VALUE),
        "31 bits of rank");
  }
}
