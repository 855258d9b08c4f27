package io.ncclinspector.report.analysis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SuspectRuleTest {
  @Test
  void aRankLateFarMoreOftenThanChanceIsASuspect() {
    // 8 ranks, 300 late collectives, all by one rank: chance would give it 37.5.
    assertTrue(StragglerAnalysis.suspect(300, 300, 8, 0.30));
    // Two ranks, one of them late in 30 % of 1000 collectives: 1/2 is the chance share.
    assertTrue(StragglerAnalysis.suspect(300, 300, 2, 0.30));
  }

  @Test
  void chanceLevelsTinyCountsAndTinySharesAreNot() {
    // Late collectives spread evenly over 8 ranks: 40 each of 320.
    assertFalse(StragglerAnalysis.suspect(40, 320, 8, 0.04));
    // A handful of noisy late collectives.
    assertFalse(StragglerAnalysis.suspect(4, 4, 8, 0.004));
    // Last in every late collective, but those are 0.5 % of its collectives.
    assertFalse(StragglerAnalysis.suspect(50, 50, 8, 0.005));
  }
}
