package io.ncclinspector;

import io.ncclinspector.testsupport.TestData;
import io.ncclinspector.testsupport.LogCapture;
import io.ncclinspector.testkit.SyntheticTrace;
import io.ncclinspector.replay.TracePlayer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Step and phase tags (captured at enqueue), pause/resume and the minimum size at run time. */
class TagsAndControlTest {
  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();

  private NcclInspector enable(List<OperationRecord> sink) {
    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir.resolve("out"))
        .minMessageBytes(0).requireKernelTiming(false).build());
    inspector.addListener(new InspectorListener() {
      @Override
      public void operationCompleted(OperationRecord r) {
        sink.add(r);
      }
    });
    return inspector;
  }

  @Test
  void collectivesCarryTheTagsOfTheThreadThatEnqueuedThem() throws Exception {
    List<OperationRecord> records = new CopyOnWriteArrayList<>();
    NcclInspector inspector = enable(records);
    /* h2_coal: groups of 4 AllReduce; their CollApi events (on this thread) carry the tag, their
       Coll and kernel events follow. */
    try (TracePlayer d = TracePlayer.open(inspector, TestData.traceFiles("h2_coal").get(0))) {
      inspector.step(41);
      try (Phase backward = inspector.phase("backward")) {
        try (Phase nested = inspector.phase("bucket-0")) {
          d.play(d.size() / 3);
        }
        inspector.step(42);
        d.play(d.size() / 3);
      }
      inspector.clearStep();
      d.playAll();
    }
    inspector.close();
    assertEquals(66, records.size());
    long bucket = records.stream().filter(r -> "bucket-0".equals(r.tags().phase())).count();
    long backward = records.stream().filter(r -> "backward".equals(r.tags().phase())).count();
    long untagged = records.stream().filter(r -> r.tags().phase() == null && !r.tags().hasStep()).count();
    assertTrue(bucket > 0 && backward > 0 && untagged > 0, bucket + " " + backward + " " + untagged);
    assertTrue(records.stream().filter(r -> "bucket-0".equals(r.tags().phase())).allMatch(r -> r.tags().step() == 41));
    assertTrue(records.stream().filter(r -> "backward".equals(r.tags().phase())).allMatch(r -> r.tags().step() == 42));
    assertEquals(66, bucket + backward + untagged, "every record has the tag of its enqueue, or none");

    String json = Files.readString(inspector.status().output().orElseThrow().file());
    assertTrue(json.contains("\"coll_step\":41") && json.contains("\"coll_phase\":\"bucket-0\""));
    List<CommunicatorSnapshot> comms = inspector.snapshot().communicators(); /* h2_coal has two */
    assertEquals(42, comms.stream().mapToLong(CommunicatorSnapshot::lastStep).max().orElse(-1));
    assertEquals(backward, comms.stream().flatMap(c -> c.phases().stream())
        .filter(p -> p.phase().equals("backward")).mapToLong(PhaseStatistics::count).sum());
    assertEquals(bucket, comms.stream().flatMap(c -> c.phases().stream())
        .filter(p -> p.phase().equals("bucket-0")).mapToLong(PhaseStatistics::count).sum());
  }

  @Test
  void aPhaseIsClosedOnItsOwnThread() throws Exception {
    logs.expect("WARN", "no NCCL communicator reached the inspector");
    NcclInspector inspector = enable(new CopyOnWriteArrayList<>());
    Phase p = inspector.phase("forward");
    Thread other = new Thread(() -> assertThrows(IllegalStateException.class, p::close));
    other.start();
    other.join();
    p.close();
    p.close();
    inspector.close();
  }

  @Test
  void pauseResumeAndTheMinimumSizeApplyWhileRunning() throws Exception {
    List<OperationRecord> records = new CopyOnWriteArrayList<>();
    NcclInspector inspector = enable(records);
    SyntheticTrace s = new SyntheticTrace().init(1, 0x9L, 0, 2);
    for (int i = 0; i < 30; i++) {
      int op = s.coll(1, "AllReduce", i, i < 20 ? 1 << 20 : 1024, "ncclFloat32", 0);
      s.stop(op);
    }
    s.fini(1);
    try (TracePlayer d = TracePlayer.open(inspector, s.write(dir.resolve("t"), 5))) {
      d.play(1 + 10 * 2 / 2); /* init and 5 operations */
      inspector.pause();
      assertTrue(inspector.status().paused());
      d.play(10); /* 5 operations while paused */
      inspector.resume();
      inspector.setMinMessageBytes(8192);
      d.playAll(); /* 10 large ones kept, the 10 small ones below the new minimum */
    }
    inspector.close();
    assertEquals(15, records.size());
    assertEquals(5, inspector.counters().get("paused"));
    assertEquals(10, inspector.counters().get("below_min_size"));
    assertNull(records.stream().filter(r -> r.sequence() >= 5 && r.sequence() < 10).findAny().orElse(null));
  }
}
