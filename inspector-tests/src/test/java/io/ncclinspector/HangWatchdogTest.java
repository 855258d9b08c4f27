package io.ncclinspector;

import io.ncclinspector.testsupport.Await;
import io.ncclinspector.testsupport.LogCapture;
import io.ncclinspector.testkit.SyntheticTrace;
import io.ncclinspector.replay.TracePlayer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A collective that started but does not finish is reported once, with what is known of it. */
class HangWatchdogTest {
  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();

  @Test
  void anOperationInFlightTooLongIsReportedOnce() throws Exception {
    logs.expect("WARN", "in flight for");
    SyntheticTrace s = new SyntheticTrace().init(1, 0xdeadL, 3, 4);
    int op = s.coll(1, "ReduceScatter", 77, 1 << 20, "ncclFloat32", 2);
    int ch0 = s.kernelChannel(1, op, 0, 1_795_942_870_000_000_000L);
    s.stop(op);
    /* 4 calls so far: init, start, channel start, stop. The hang: channel 1 never starts. */
    int ch1 = s.kernelChannel(1, op, 1, 1_795_942_870_000_001_000L);
    s.kernelChannelDone(ch0, 1_795_942_870_000_500_000L).kernelChannelDone(ch1, 1_795_942_870_000_600_000L).fini(1);
    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir.resolve("out"))
        .hangTimeout(Duration.ofMillis(100)).build());
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
    try (TracePlayer d = TracePlayer.open(inspector, s.write(dir.resolve("t"), 9))) {
      inspector.step(12);
      d.play(4);
      inspector.clearStep();
      Await.until(() -> !hangs.isEmpty());
      Thread.sleep(400); /* several more watchdog rounds */
      assertEquals(1, hangs.size(), "reported once");
      HangEvent h = hangs.get(0);
      assertEquals("ReduceScatter", h.operation());
      assertEquals(77, h.sequence());
      assertEquals(0xdeadL, h.communicator().id());
      assertEquals(3, h.communicator().rank());
      assertTrue(h.age().toMillis() >= 100, h.age().toString());
      assertEquals(1, h.progress().channelsStarted());
      assertEquals(0, h.progress().channelsDone());
      assertEquals(2, h.progress().announcedChannels());
      assertTrue(h.progress().enqueueDone());
      assertEquals(12, h.tags().step());
      assertFalse(done.stream().anyMatch(r -> r.sequence() == 77), "nothing aborted, nothing completed");
      d.playAll(); /* the collective finishes after all */
    }
    inspector.close();
    assertEquals(1, done.size());
    assertEquals(1, hangs.size());
  }
}
