package io.ncclinspector.internal;

import io.ncclinspector.testkit.RecordBuilder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.OperationClass;
import io.ncclinspector.Quarantine;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.SlowCollectiveEvent.Kind;
import io.ncclinspector.SlowCollectiveSummary;
import io.ncclinspector.TimingSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The rate limit, on explicit time: nothing here waits. */
class SlowCollectiveRateLimiterTest {
  private static final long SECOND = 1_000_000_000L;
  private static final CommunicatorInfo DP = new CommunicatorInfo(1, 0xd0L, "dp", 0, 2, 1, 5);
  private static final CommunicatorInfo TP = new CommunicatorInfo(2, 0x70L, "tp", 0, 2, 1, 5);

  private static SlowCollectiveEvent slow(CommunicatorInfo c, long bytes, long seq, long execNanos, Kind kind) {
    CollectiveRecord r = RecordBuilder.collective(c, "AllReduce").sequence(seq).messageBytes(bytes)
        .algorithm("RING", "LL").channels(2, 2).executionNanos(execNanos).algorithmBandwidthGbs(1).busBandwidthGbs(1)
        .gpu(1, execNanos, 0).startWallNanos(1).buildCollective();
    OperationClass cls = OperationClass.of(r);
    return new SlowCollectiveEvent(r, new SlowCollectiveEvent.Baseline(cls, 8_000, 95_000, 475_000, 2000),
        SlowCollectiveEvent.Reason.BEYOND_CLASS_RANGE, kind);
  }

  @Test
  void atMostNPerClassAndIntervalTheRestSummedUpOnceTheIntervalIsOver() {
    SlowCollectiveRateLimiter limiter = new SlowCollectiveRateLimiter(3, Duration.ofSeconds(10));
    List<SlowCollectiveSummary> summaries = new ArrayList<>();
    long t0 = 1_000 * SECOND;
    int admitted = 0;
    SlowCollectiveEvent worst = null;
    for (int i = 0; i < 40; i++) {
      long exec = i == 17 ? 2_100_000 : 600_000 + i;
      SlowCollectiveEvent e = slow(DP, 64 << 10, i, exec, i % 4 == 0 ? Kind.UNKNOWN : Kind.WAITING_FOR_PEERS);
      if (i == 17) {
        worst = e;
      }
      if (limiter.admit(e, t0 + i * 100_000_000L, summaries::add)) {
        admitted++;
      }
    }
    assertEquals(3, admitted, "the first three of the interval");
    assertEquals(37, limiter.suppressed());
    limiter.due(t0 + 10 * SECOND - 1, summaries::add);
    assertEquals(List.of(), summaries, "the interval is not over yet");
    limiter.due(t0 + 10 * SECOND, summaries::add);
    assertEquals(1, summaries.size());
    SlowCollectiveSummary s = summaries.get(0);
    assertEquals(37, s.suppressed());
    assertEquals(worst.asRateLimited(), s.worst(), "the worst, held back like the others");
    assertTrue(s.worst().rateLimited());
    assertEquals(Duration.ofSeconds(10), s.period());
    assertEquals(DP, s.communicator());
    assertEquals(OperationClass.collective("AllReduce", "RING", "LL", 64 << 10), s.operationClass());
    assertEquals(Map.of(Kind.WAITING_FOR_PEERS, 28L, Kind.UNKNOWN, 9L), s.kinds());
    assertEquals("37 more slow AllReduce RING/LL 64KiB on communicator 0xd0 in the last 10 s, worst 2.1 ms"
        + " (28 waiting for peers, 9 unknown)", s.describe());
    limiter.due(t0 + 100 * SECOND, summaries::add);
    assertEquals(1, summaries.size(), "summed up once");
    assertTrue(limiter.admit(slow(DP, 64 << 10, 99, 700_000, Kind.UNKNOWN), t0 + 100 * SECOND, summaries::add),
        "a new interval opens with the next slow collective");
  }

  @Test
  void classesAndCommunicatorsAreLimitedApart() {
    SlowCollectiveRateLimiter limiter = new SlowCollectiveRateLimiter(1, Duration.ofSeconds(10));
    List<SlowCollectiveSummary> summaries = new ArrayList<>();
    assertTrue(limiter.admit(slow(DP, 64 << 10, 0, 1_000_000, Kind.UNKNOWN), 0, summaries::add));
    assertTrue(limiter.admit(slow(DP, 1 << 20, 1, 1_000_000, Kind.UNKNOWN), 0, summaries::add), "another size");
    assertTrue(limiter.admit(slow(TP, 64 << 10, 0, 1_000_000, Kind.UNKNOWN), 0, summaries::add), "another communicator");
    assertFalse(limiter.admit(slow(DP, 64 << 10, 2, 1_000_000, Kind.UNKNOWN), 1, summaries::add));
    assertFalse(limiter.admit(slow(TP, 64 << 10, 1, 1_000_000, Kind.UNKNOWN), 1, summaries::add));
    limiter.finish(DP.serial(), 5 * SECOND, summaries::add);
    assertEquals(1, summaries.size(), "the destroyed communicator's held-back ones, at once");
    assertEquals(DP, summaries.get(0).communicator());
    assertEquals(Duration.ofSeconds(5), summaries.get(0).period());
    limiter.finishAll(6 * SECOND, summaries::add);
    assertEquals(2, summaries.size(), "and the rest at close");
    assertEquals(TP, summaries.get(1).communicator());
    limiter.finishAll(7 * SECOND, summaries::add);
    assertEquals(2, summaries.size());
  }

  @Test
  void anIntervalOverWhenTheNextSlowOneComesIsSummedUpFirst() {
    SlowCollectiveRateLimiter limiter = new SlowCollectiveRateLimiter(1, Duration.ofSeconds(10));
    List<SlowCollectiveSummary> summaries = new ArrayList<>();
    limiter.admit(slow(DP, 64 << 10, 0, 1_000_000, Kind.UNKNOWN), 0, summaries::add);
    limiter.admit(slow(DP, 64 << 10, 1, 1_000_000, Kind.UNKNOWN), SECOND, summaries::add);
    assertTrue(limiter.admit(slow(DP, 64 << 10, 2, 1_000_000, Kind.UNKNOWN), 11 * SECOND, summaries::add));
    assertEquals(1, summaries.size());
    assertEquals(1, summaries.get(0).suppressed());
  }

  @Test
  void withoutLimitEverythingGoesThrough() {
    SlowCollectiveRateLimiter limiter = new SlowCollectiveRateLimiter(Integer.MAX_VALUE, Duration.ofSeconds(10));
    for (int i = 0; i < 1000; i++) {
      assertTrue(limiter.admit(slow(DP, 64 << 10, i, 1_000_000, Kind.UNKNOWN), 0, s -> { }));
    }
    assertEquals(0, limiter.suppressed());
  }
}
