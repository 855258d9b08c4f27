package io.ncclinspector.internal;

import io.ncclinspector.testkit.RecordBuilder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.testsupport.Await;
import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.CommunicatorSelector;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.SlowCollectiveDetection;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.SlowCollectiveSummary;
import io.ncclinspector.TimingSource;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The analysis sink routes slow collectives through the rate limit to listeners, on a clock the
 * test moves by hand: what must not have arrived yet is shown by a marker record that the same
 * listener queue delivers after it, never by waiting.
 */
class AnalysisSinkSlowCollectiveTest {
  private static final CommunicatorInfo COMM = new CommunicatorInfo(3, 0xabcL, "dp", 0, 2, 1, 5);
  private static final long SECOND = 1_000_000_000L;

  private static CollectiveRecord record(long seq, long execNanos) {
    return RecordBuilder.collective(COMM, "AllReduce").sequence(seq).messageBytes(65536).algorithm("RING", "LL")
        .channels(2, 2).executionNanos(execNanos).algorithmBandwidthGbs(1).busBandwidthGbs(1).gpu(1, execNanos, 0)
        .startWallNanos(1).buildCollective();
  }

  @Test
  void slowCollectivesBeyondTheLimitReachListenersAsOneSummaryAfterTheInterval() throws Exception {
    AtomicLong now = new AtomicLong(100 * SECOND);
    ListenerDispatcher listeners = new ListenerDispatcher(java.time.Duration.ofSeconds(5));
    List<SlowCollectiveEvent> slow = new CopyOnWriteArrayList<>();
    List<SlowCollectiveSummary> summaries = new CopyOnWriteArrayList<>();
    List<Long> markers = new CopyOnWriteArrayList<>();
    listeners.add(CommunicatorSelector.all(), new InspectorListener() {
      @Override
      public void operationCompleted(OperationRecord r) {
        if (r.sequence() < 0) {
          markers.add(r.sequence());
        }
      }

      @Override
      public void slowCollective(SlowCollectiveEvent e) {
        slow.add(e);
      }

      @Override
      public void slowCollectivesSuppressed(SlowCollectiveSummary s) {
        summaries.add(s);
      }
    }, false, true, 1024);
    SlowCollectiveDetection config = SlowCollectiveDetection.defaults().withRateLimit(2, Duration.ofSeconds(10));
    AnalysisSink sink = new AnalysisSink(new StatisticsStore(4), new SlowCollectiveDetector(config),
        new SlowCollectiveRateLimiter(config.maxEventsPerInterval(), config.interval()), listeners, event -> { },
        now::get);
    long seq = 0;
    for (; seq < 1000; seq++) {
      sink.operationCompleted(record(seq, 8_000));
    }
    for (int k = 0; k < 7; k++) {
      sink.operationCompleted(record(seq++, 2_000_000 + k));
      now.addAndGet(SECOND);
    }
    sink.flush(); /* 7 s into the interval */
    listeners.accept(record(-1, 1));
    Await.until(() -> markers.contains(-1L));
    assertEquals(2, slow.size(), "two callbacks in the interval");
    assertEquals(List.of(), summaries, "the interval is not over: nothing summed up yet");
    now.addAndGet(3 * SECOND);
    sink.flush();
    Await.until(() -> summaries.size() == 1);
    SlowCollectiveSummary s = summaries.get(0);
    assertEquals(5, s.suppressed());
    assertEquals(2_000_006, s.worst().record().timing().executionNanos());
    assertEquals(Duration.ofSeconds(10), s.period());
    sink.operationCompleted(record(seq++, 2_000_000));
    sink.operationCompleted(record(seq++, 2_000_000));
    sink.operationCompleted(record(seq, 2_000_000));
    sink.close(); /* the inspector closes: what is held back is summed up at once */
    listeners.close();
    assertEquals(4, slow.size());
    assertEquals(2, summaries.size());
    assertEquals(1, summaries.get(1).suppressed());
    assertTrue(summaries.get(1).period().isZero());
  }
}
