package io.ncclinspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.internal.ManualTicker;
import io.ncclinspector.replay.TracePlayer;
import io.ncclinspector.replay.TraceReader;
import io.ncclinspector.testkit.SyntheticTrace;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import io.ncclinspector.testsupport.Await;
import io.ncclinspector.testsupport.LogCapture;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A collective that started but does not finish is reported once, with what is known of it. Time
 * is the test's: the native core runs on the trace's virtual clock, which the test moves, and the
 * watchdog's rounds wait on a {@link ManualTicker}; nothing sleeps.
 */
class HangWatchdogTest {
  private static final Duration TIMEOUT = Duration.ofMillis(100);
  private static final Duration PERIOD = TIMEOUT.dividedBy(4);
  /* SyntheticTrace stamps its lines 1 µs apart from 1 s (monotonic): init, then the collective's start. */
  private static final long STARTED = 1_000_002_000L;

  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();

  /** Sets the core's virtual clock (monotonic ns; the wall clock follows as in the trace). */
  private static void nativeClock(long mono) {
    assertEquals(0, ProfilerTableDriver.setVirtualClock(1, mono, SyntheticTrace.WALL + mono));
  }

  private int warnings() {
    return logs.find("WARN", "in flight for").size();
  }

  @Test
  void anOperationInFlightAsLongAsTheTimeoutIsReportedOnce() throws Exception {
    logs.expect("WARN", "in flight for");
    SyntheticTrace s = new SyntheticTrace().init(1, 0xdeadL, 3, 4);
    int op = s.coll(1, "ReduceScatter", 77, 1 << 20, "ncclFloat32", 2);
    int ch0 = s.kernelChannel(1, op, 0, 1_795_942_870_000_000_000L);
    s.stop(op);
    /* 4 calls so far: init, start, channel start, stop. The hang: channel 1 does not start, until
       the rest of the trace is played, 2 s later on the trace's clock. */
    s.clock(3_000_000_000L);
    int ch1 = s.kernelChannel(1, op, 1, 1_795_942_870_000_001_000L);
    s.kernelChannelDone(ch0, 1_795_942_870_000_500_000L).kernelChannelDone(ch1, 1_795_942_870_000_600_000L).fini(1);
    ManualTicker ticker = new ManualTicker();
    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir.resolve("out"))
        .hangTimeout(TIMEOUT).build(), ticker);
    List<HangEvent> hangs = new CopyOnWriteArrayList<>();
    List<OperationRecord> done = new CopyOnWriteArrayList<>();
    inspector.addListener(new InspectorListener() {
      @Override
      public void hangSuspected(HangEvent e) {
        hangs.add(e);
      }

      @Override
      public void operationCompleted(OperationRecord r) {
        done.add(r);
      }
    });
    try (TracePlayer d = TracePlayer.open(inspector, new TraceReader().read(s.write(dir.resolve("t"), 9)), true)) {
      inspector.step(12);
      d.play(4);
      inspector.clearStep();
      ticker.round(PERIOD);
      assertEquals(0, warnings(), "in flight for 2 µs");
      nativeClock(STARTED + TIMEOUT.toNanos() - 1);
      ticker.round(PERIOD);
      assertEquals(0, warnings(), "1 ns short of the timeout");

      nativeClock(STARTED + TIMEOUT.toNanos());
      ticker.round(PERIOD);
      assertEquals(1, warnings(), "as old as the timeout");
      Await.until(() -> !hangs.isEmpty());
      HangEvent h = hangs.get(0);
      assertEquals("ReduceScatter", h.operation());
      assertEquals(77, h.sequence());
      assertEquals(0xdeadL, h.communicator().id());
      assertEquals(3, h.communicator().rank());
      assertEquals(TIMEOUT, h.age());
      assertEquals(Instant.ofEpochSecond(0, SyntheticTrace.WALL + STARTED), h.enqueuedAt());
      assertEquals(1, h.progress().channelsStarted());
      assertEquals(0, h.progress().channelsDone());
      assertEquals(2, h.progress().announcedChannels());
      assertTrue(h.progress().enqueueDone());
      assertEquals(12, h.tags().step());

      for (int i = 1; i <= 3; i++) {
        nativeClock(STARTED + TIMEOUT.toNanos() + i * PERIOD.toNanos());
        ticker.round(PERIOD);
      }
      assertEquals(1, warnings(), "reported once, however many rounds see it");
      assertFalse(done.stream().anyMatch(r -> r.sequence() == 77), "nothing aborted, nothing completed");
      d.playAll(); /* the collective finishes after all */
    }
    inspector.close(); /* every listener event delivered */
    assertEquals(1, done.size());
    assertEquals(1, hangs.size());
  }
}
