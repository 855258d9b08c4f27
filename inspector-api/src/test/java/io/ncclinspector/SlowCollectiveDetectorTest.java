package io.ncclinspector;

import io.ncclinspector.replay.TracePlayer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.internal.SlowCollectiveDetector;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Slow-collective detection on synthetic streams: fires on real slowdowns, quiet otherwise. */
class SlowCollectiveDetectorTest {
  private static final CommunicatorInfo COMM = new CommunicatorInfo(1, 0x1234L, "dp", 0, 8, 1, 5);

  static CollectiveRecord record(long bytes, long execNanos, String proto) {
    return new CollectiveRecord(COMM, "AllReduce", 0, bytes / 4, "ncclFloat32", bytes, 0, "RING", proto, 8, 8, 16,
        execNanos, TimingSource.KERNEL_GPU, 1, 1, 1, execNanos, 0, Quarantine.NONE, 0, 0, Set.of(), List.of(), 1, 2,
        -1, null);
  }

  /** Log-normal jitter around a median. */
  static long jitter(Random rnd, long median, double sigma) {
    return Math.round(median * Math.exp(sigma * rnd.nextGaussian()));
  }

  private static List<SlowCollectiveEvent> feed(SlowCollectiveDetector d, List<CollectiveRecord> records) {
    List<SlowCollectiveEvent> events = new ArrayList<>();
    for (CollectiveRecord r : records) {
      SlowCollectiveEvent e = d.observe(r);
      if (e != null) {
        events.add(e);
      }
    }
    return events;
  }

  @Test
  void quietOnOrdinaryNoise() {
    for (double sigma : new double[] {0.05, 0.1, 0.25}) {
      Random rnd = new Random(7);
      SlowCollectiveDetector d = new SlowCollectiveDetector(SlowCollectiveDetection.defaults());
      List<CollectiveRecord> stream = new ArrayList<>();
      for (int i = 0; i < 5000; i++) {
        stream.add(record(1 << 20, jitter(rnd, 1_000_000, sigma), "SIMPLE"));
      }
      assertEquals(List.of(), feed(d, stream), "jitter sigma " + sigma);
    }
  }

  @Test
  void firesOnARealSlowdownWithItsBaselineAndScore() {
    Random rnd = new Random(11);
    SlowCollectiveDetector d = new SlowCollectiveDetector(SlowCollectiveDetection.defaults());
    for (int i = 0; i < 200; i++) {
      assertNull(d.observe(record(1 << 20, jitter(rnd, 1_000_000, 0.1), "SIMPLE")));
    }
    SlowCollectiveEvent e = d.observe(record(1 << 20, 3_000_000, "SIMPLE"));
    assertNotNull(e);
    assertEquals("relative", e.reason());
    assertEquals(new OperationClass("AllReduce", "RING", "SIMPLE", 1 << 20), e.baseline().operationClass());
    assertTrue(Math.abs(e.baseline().medianNanos() - 1_000_000) < 50_000, e.baseline().toString());
    assertEquals(64, e.baseline().samples());
    assertTrue(e.score() > 8, "score " + e.score());
    assertTrue(e.ratio() > 2.5 && e.ratio() < 3.5, "ratio " + e.ratio());
  }

  @Test
  void quietOnSizeAndProtocolChangesOfNormalTraining() {
    Random rnd = new Random(3);
    SlowCollectiveDetector d = new SlowCollectiveDetector(SlowCollectiveDetection.defaults());
    List<CollectiveRecord> stream = new ArrayList<>();
    for (int step = 0; step < 300; step++) {
      /* Each step: small LL all-reduces, big SIMPLE ones 60 times longer, and a bucket that
         sometimes switches protocol. */
      stream.add(record(64 << 10, jitter(rnd, 30_000, 0.1), "LL"));
      stream.add(record(64 << 20, jitter(rnd, 1_800_000, 0.1), "SIMPLE"));
      stream.add(record(4 << 20, jitter(rnd, step % 50 < 25 ? 150_000 : 400_000, 0.1),
          step % 50 < 25 ? "LL128" : "SIMPLE"));
    }
    assertEquals(List.of(), feed(d, stream));
  }

  @Test
  void absoluteThresholdFiresEvenDuringWarmUp() {
    SlowCollectiveDetector d = new SlowCollectiveDetector(
        SlowCollectiveDetection.defaults().withAbsoluteThreshold(Duration.ofMillis(50)));
    assertNull(d.observe(record(1 << 20, 10_000_000, "SIMPLE")));
    SlowCollectiveEvent e = d.observe(record(1 << 20, 60_000_000, "SIMPLE"));
    assertNotNull(e);
    assertEquals("absolute", e.reason());
  }

  @Test
  void disabledDetectionIsSilentAndCpuTimedRecordsAreNotJudged() {
    SlowCollectiveDetector off = new SlowCollectiveDetector(SlowCollectiveDetection.disabled());
    for (int i = 0; i < 100; i++) {
      off.observe(record(1 << 20, 1_000_000, "SIMPLE"));
    }
    assertNull(off.observe(record(1 << 20, 100_000_000, "SIMPLE")));
  }

  @TempDir Path dir;

  @Test
  void endToEndAListenerHearsOfTheSlowOne() throws Exception {
    long t0 = 1_795_942_870_000_000_000L;
    SyntheticTrace s = new SyntheticTrace().init(1, 0x51L, 0, 2);
    Random rnd = new Random(5);
    for (int i = 0; i < 60; i++) {
      long duration = i == 50 ? 40_000 : jitter(rnd, 10_000, 0.05);
      int op = s.coll(1, "AllReduce", i, 1 << 20, "ncclFloat32", 1);
      int ch = s.kernelChannel(1, op, 0, t0 + i * 1_000_000L);
      s.stop(op).kernelChannelDone(ch, t0 + i * 1_000_000L + duration);
    }
    s.fini(1);
    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir.resolve("out")).build());
    List<SlowCollectiveEvent> slow = new CopyOnWriteArrayList<>();
    inspector.addListener(new InspectorListener() {
      @Override
      public void slowCollective(SlowCollectiveEvent e) {
        slow.add(e);
      }
    });
    try (TracePlayer d = TracePlayer.open(inspector, s.write(dir.resolve("t"), 3))) {
      d.playAll();
    }
    inspector.close();
    assertEquals(1, slow.size(), slow::toString);
    assertEquals(50, slow.get(0).record().sequence());
    assertEquals(40_000, slow.get(0).record().executionNanos());
  }
}
