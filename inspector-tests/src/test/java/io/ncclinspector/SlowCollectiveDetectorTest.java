package io.ncclinspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.SlowCollectiveEvent.Kind;
import io.ncclinspector.SlowCollectiveEvent.Reason;
import io.ncclinspector.internal.SlowCollectiveDetector;
import io.ncclinspector.testkit.RecordBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Slow-collective detection on synthetic streams: fires on real slowdowns, quiet otherwise. */
class SlowCollectiveDetectorTest {
  private static final CommunicatorInfo COMM = new CommunicatorInfo(1, 0x1234L, "dp", 0, 8, 1, 5);
  private static final long WALL = 1_795_942_870_000_000_000L;
  /** GPU clock minus host clock of these records. */
  private static final long OFFSET = -300_000;

  static CollectiveRecord record(long bytes, long execNanos, String proto) {
    return record(bytes, execNanos, proto, 0, 10_000, 500);
  }

  /** A record enqueued at {@code seq} × 1 ms, started {@code startDelay} after (host time), channels {@code skew} apart. */
  static CollectiveRecord record(long bytes, long execNanos, String proto, long seq, long startDelay, long skew) {
    long wall = WALL + seq * 1_000_000;
    return RecordBuilder.collective(COMM, "AllReduce").sequence(seq).messageBytes(bytes).algorithm("RING", proto)
        .executionNanos(execNanos).algorithmBandwidthGbs(1).busBandwidthGbs(1)
        .gpu(wall + startDelay + OFFSET, execNanos + skew, skew).startWallNanos(wall).buildCollective();
  }

  /** Log-normal jitter around a median. */
  static long jitter(Random rnd, long median, double sigma) {
    return Math.round(median * Math.exp(sigma * rnd.nextGaussian()));
  }

  private static SlowCollectiveDetector detector() {
    return new SlowCollectiveDetector(SlowCollectiveDetection.defaults());
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
      List<CollectiveRecord> stream = new ArrayList<>();
      for (int i = 0; i < 5000; i++) {
        stream.add(record(1 << 20, jitter(rnd, 1_000_000, sigma), "SIMPLE"));
      }
      assertEquals(List.of(), feed(detector(), stream), "jitter sigma " + sigma);
    }
  }

  @Test
  void firesOnARealSlowdownWithItsBaseline() {
    Random rnd = new Random(11);
    SlowCollectiveDetector d = detector();
    for (int i = 0; i < 200; i++) {
      assertNull(d.observe(record(1 << 20, jitter(rnd, 1_000_000, 0.1), "SIMPLE", i, 10_000, 500)));
    }
    assertNull(d.observe(record(1 << 20, 4_000_000, "SIMPLE", 200, 10_000, 500)), "4x the median is inside 5x p99");
    SlowCollectiveEvent e = d.observe(record(1 << 20, 10_000_000, "SIMPLE", 201, 10_000, 500));
    assertNotNull(e);
    assertEquals(Reason.BEYOND_CLASS_RANGE, e.reason());
    assertEquals(Kind.WAITING_FOR_PEERS, e.kind(), "started as usual, channels together");
    SlowCollectiveEvent.Baseline b = e.baseline();
    assertEquals(OperationClass.collective("AllReduce", "RING", "SIMPLE", 1 << 20), b.operationClass());
    assertTrue(Math.abs(b.medianNanos() - 1_000_000) < 130_000, b.toString());
    assertTrue(b.highNanos() > 1_150_000 && b.highNanos() < 1_700_000, "p99 of 10% jitter: " + b);
    assertEquals(Math.max(5 * b.highNanos(), b.highNanos() + 20_000), b.thresholdNanos());
    assertEquals(201, b.samples());
    assertTrue(e.ratio() > 5 && e.ratio() < 9, "ratio " + e.ratio());
    assertTrue(e.describe().startsWith("slow AllReduce #201 (AllReduce RING/SIMPLE 1MiB) on communicator 0x1234 took"
        + " 10.0 ms, "), e.describe());
    assertTrue(e.describe().endsWith("; waiting for peers"), e.describe());
  }

  @Test
  void quietOnSizeAndProtocolChangesOfNormalTraining() {
    Random rnd = new Random(3);
    List<CollectiveRecord> stream = new ArrayList<>();
    for (int step = 0; step < 300; step++) {
      /* Each step: small LL all-reduces, big SIMPLE ones 60 times longer, and a bucket that
         sometimes switches protocol. */
      stream.add(record(64 << 10, jitter(rnd, 30_000, 0.1), "LL"));
      stream.add(record(64 << 20, jitter(rnd, 1_800_000, 0.1), "SIMPLE"));
      stream.add(record(4 << 20, jitter(rnd, step % 50 < 25 ? 150_000 : 400_000, 0.1),
          step % 50 < 25 ? "LL128" : "SIMPLE"));
    }
    assertEquals(List.of(), feed(detector(), stream));
  }

  @Test
  void aRareModeAndATailAreNormalButFarBeyondThemIsNot() {
    /* 5 % of the operations wait ~80 µs for a peer, the others take ~8 µs: the old median/MAD rule
       called every wait slow. */
    Random rnd = new Random(5);
    SlowCollectiveDetector d = detector();
    List<SlowCollectiveEvent> events = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      long x = rnd.nextDouble() < 0.05 ? 60_000 + rnd.nextInt(35_000) : 3_000 + rnd.nextInt(5_000);
      SlowCollectiveEvent e = d.observe(record(64 << 10, x, "LL"));
      if (e != null) {
        events.add(e);
      }
    }
    /* The first waits are news to the class; after a handful it has learnt them as its own. */
    assertTrue(events.size() <= 6, "only the first few waits: " + events.size());
    assertTrue(events.stream().allMatch(e -> e.record().timing().executionNanos() >= 60_000), "never the common mode");
    assertNotNull(d.observe(record(64 << 10, 1_000_000, "LL")), "10x the waits");
  }

  @Test
  void anExtremeFirstOperationDoesNotHideLaterAnomalies() {
    /* Recorded on 2 x H200: the first AllReduce of a communicator waited 639 ms for its peer. */
    SlowCollectiveDetector d = detector();
    assertNull(d.observe(record(4096, 639_281_000, "LL")), "nothing to judge the first one by");
    Random rnd = new Random(9);
    for (int i = 0; i < 30; i++) {
      assertNull(d.observe(record(4096, 3_000 + rnd.nextInt(2_000), "LL")));
    }
    SlowCollectiveEvent e = d.observe(record(4096, 200_000, "LL"));
    assertNotNull(e, "40x the class, though far below its first operation");
    assertTrue(e.baseline().highNanos() < 6_000, e.baseline().toString());
  }

  @Test
  void reportedAnomaliesDoNotHideTheNextOnes() {
    Random rnd = new Random(13);
    SlowCollectiveDetector d = detector();
    for (int i = 0; i < 50; i++) {
      d.observe(record(64 << 10, jitter(rnd, 8_000, 0.1), "LL"));
    }
    for (int k = 0; k < 3; k++) {
      assertNotNull(d.observe(record(64 << 10, 2_000_000, "LL")), "anomaly " + k);
      for (int i = 0; i < 10; i++) {
        d.observe(record(64 << 10, jitter(rnd, 8_000, 0.1), "LL"));
      }
    }
  }

  @Test
  void aNewNormalStopsBeingReported() {
    SlowCollectiveDetector d = detector();
    for (int i = 0; i < 100; i++) {
      d.observe(record(1 << 20, 10_000, "SIMPLE"));
    }
    int reported = 0;
    for (int i = 0; i < 500; i++) {
      if (d.observe(record(1 << 20, 200_000, "SIMPLE")) != null) {
        reported++;
      }
    }
    assertTrue(reported >= 1 && reported <= 6, "the shift is reported, then becomes the class's range: " + reported);
  }

  @Test
  void anExcessOfAFewMicrosecondsIsNeverReported() {
    SlowCollectiveDetector d = detector();
    for (int i = 0; i < 100; i++) {
      d.observe(record(4096, 1_000, "LL"));
    }
    assertNull(d.observe(record(4096, 15_000, "LL")), "15x, but only 14 us more");
    SlowCollectiveEvent e = d.observe(record(4096, 30_000, "LL"));
    assertNotNull(e);
    assertEquals(e.baseline().highNanos() + 20_000, e.baseline().thresholdNanos(), "the floor, not 5x, sets it");
    assertTrue(e.baseline().highNanos() >= 1_000 && e.baseline().highNanos() < 1_125, e.baseline().toString());
  }

  @Test
  void aClassWarmingUpIsJudgedAgainstTheEstablishedClassesOfItsOperation() {
    Random rnd = new Random(17);
    SlowCollectiveDetector d = detector();
    for (int i = 0; i < 3; i++) {
      assertNull(d.observe(record(1 << 20, 50_000_000, "SIMPLE")), "no basis at all yet");
    }
    SlowCollectiveDetector d2 = detector();
    for (int i = 0; i < 100; i++) {
      d2.observe(record(1 << 20, jitter(rnd, 100_000, 0.1), "SIMPLE"));
    }
    /* A smaller size is bounded by the larger one; a larger one by it, scaled by size. */
    assertNull(d2.observe(record(256 << 10, 300_000, "LL")), "3x the 1 MiB class: within 5x");
    SlowCollectiveEvent e = d2.observe(record(256 << 10, 5_000_000, "LL"));
    assertNotNull(e);
    assertEquals(Reason.BEYOND_RELATED_CLASSES, e.reason());
    assertEquals(1, e.baseline().samples(), "its own class had one sample");
    assertEquals(0, e.baseline().medianNanos());
    assertTrue(e.describe().contains("the normal bound of related classes"), e.describe());
    assertNull(d2.observe(record(4 << 20, 1_500_000, "SIMPLE")), "8x a 1 MiB bound is 4x: normal at 4 MiB");
    assertNotNull(d2.observe(record(4 << 20, 10_000_000, "SIMPLE")), "beyond 5x the scaled bound");
    SlowCollectiveDetector d3 = detector();
    for (int i = 0; i < 100; i++) {
      d3.observe(record(1 << 20, jitter(rnd, 100_000, 0.1), "SIMPLE"));
    }
    CollectiveRecord otherOperation = RecordBuilder.collective(COMM, "AllGather").messageBytes(1 << 20)
        .executionNanos(50_000_000).algorithmBandwidthGbs(1).busBandwidthGbs(1).gpu(1, 1, 0).startWallNanos(1)
        .buildCollective();
    assertNull(d3.observe(otherOperation), "another operation is no basis");
  }

  @Test
  void absoluteThresholdFiresEvenDuringWarmUp() {
    SlowCollectiveDetector d = new SlowCollectiveDetector(
        SlowCollectiveDetection.defaults().withAbsoluteThreshold(Duration.ofMillis(50)));
    assertNull(d.observe(record(1 << 20, 10_000_000, "SIMPLE")));
    SlowCollectiveEvent e = d.observe(record(1 << 20, 60_000_000, "SIMPLE"));
    assertNotNull(e);
    assertEquals(Reason.ABSOLUTE_THRESHOLD, e.reason());
    assertEquals(50_000_000, e.baseline().thresholdNanos());
    assertEquals(Double.POSITIVE_INFINITY, e.ratio());
    assertTrue(e.describe().contains("over the absolute threshold of 50.0 ms"), e.describe());
  }

  @Test
  void disabledDetectionIsSilentAndUntrustedRecordsAreNeitherJudgedNorLearnt() {
    SlowCollectiveDetector off = new SlowCollectiveDetector(SlowCollectiveDetection.disabled());
    for (int i = 0; i < 100; i++) {
      off.observe(record(1 << 20, 1_000_000, "SIMPLE"));
    }
    assertNull(off.observe(record(1 << 20, 100_000_000, "SIMPLE")));
    SlowCollectiveDetector d = detector();
    for (int i = 0; i < 100; i++) {
      d.observe(record(1 << 20, 1_000_000, "SIMPLE"));
    }
    CollectiveRecord slow = record(1 << 20, 100_000_000, "SIMPLE");
    assertNotNull(d.observe(slow));
    for (CollectiveRecord untrusted : List.of(
        copy(slow, Quarantine.GPU_TIMESTAMP_REVERSED, TimingSource.KERNEL_CPU, Set.of(RecordFlag.QUARANTINED),
            slow.timing().executionNanos()),
        copy(slow, Quarantine.KERNEL_CHANNEL_DESYNC, TimingSource.NONE, Set.of(RecordFlag.QUARANTINED), 0),
        copy(slow, Quarantine.NONE, TimingSource.KERNEL_GPU, Set.of(RecordFlag.INCOMPLETE), slow.timing().executionNanos()),
        copy(slow, Quarantine.NONE, TimingSource.COLLECTIVE_CPU, Set.of(), slow.timing().executionNanos()),
        copy(slow, Quarantine.NONE, TimingSource.KERNEL_GPU, Set.of(), 0))) {
      assertNull(d.observe(untrusted), untrusted.toString());
    }
    d.forget(COMM.serial());
    assertNull(d.observe(slow), "a destroyed communicator's classes start over");
  }

  @Test
  void theKindTellsWaitingForPeersFromStretchedTransfersAndSaysWhenItCannotTell() {
    Random rnd = new Random(23);
    SlowCollectiveDetector d = detector();
    long seq = 0;
    for (; seq < 100; seq++) {
      d.observe(record(1 << 20, jitter(rnd, 100_000, 0.05), "SIMPLE", seq, 8_000 + rnd.nextInt(4_000),
          rnd.nextInt(1_000)));
    }
    assertEquals(Kind.WAITING_FOR_PEERS, d.observe(record(1 << 20, 3_000_000, "SIMPLE", seq++, 11_000, 700)).kind());
    assertEquals(Kind.WAITING_FOR_PEERS, d.observe(record(1 << 20, 3_000_000, "SIMPLE", seq++, 2_000, 700)).kind(),
        "started sooner than usual, then waited");
    assertEquals(Kind.SLOW_TRANSFER, d.observe(record(1 << 20, 3_000_000, "SIMPLE", seq++, 10_000, 2_000_000)).kind(),
        "its channels began 2 ms apart");
    assertEquals(Kind.UNKNOWN, d.observe(record(1 << 20, 3_000_000, "SIMPLE", seq++, 5_000_000, 700)).kind(),
        "started 5 ms later than usual after its enqueue: queued behind earlier work");
    CollectiveRecord cpuTimed = copy(record(1 << 20, 3_000_000, "SIMPLE", seq++, 10_000, 700), Quarantine.NONE,
        TimingSource.KERNEL_CPU, Set.of(), 3_000_000);
    assertEquals(Kind.UNKNOWN, d.observe(cpuTimed).kind(), "no GPU timestamps");
    CollectiveRecord fewChannels = record(1 << 20, 30_000_000, "SIMPLE", seq++, 10_000, 700);
    fewChannels = RecordBuilder.from(fewChannels).flags(RecordFlag.DESYNC_CHANNELS_EXCLUDED).desyncedChannels(3)
        .buildCollective();
    SlowCollectiveEvent desynced = d.observe(fewChannels);
    assertEquals(Kind.UNKNOWN, desynced.kind(), "timed by 5 of its 8 channels: judged, but its shape is partial");
    SlowCollectiveDetector young = new SlowCollectiveDetector(SlowCollectiveDetection.defaults()
        .withAbsoluteThreshold(Duration.ofMillis(1)));
    assertEquals(Kind.UNKNOWN, young.observe(record(1 << 20, 3_000_000, "SIMPLE", 0, 10_000, 700)).kind(),
        "nothing known of the class's start delays yet");
  }

  @Test
  void configurationIsCheckedAndReadFromTheEnvironment() {
    SlowCollectiveDetection d = SlowCollectiveDetection.defaults();
    assertTrue(d.enabled());
    assertEquals(5.0, d.factor());
    assertEquals(Duration.ofNanos(20_000), d.minExcess());
    assertEquals(5, d.maxEventsPerInterval());
    assertEquals(Duration.ofSeconds(10), d.interval());
    assertThrows(IllegalArgumentException.class, () -> d.withFactor(1.2));
    assertThrows(IllegalArgumentException.class, () -> d.withFactor(Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> d.withWarmupSamples(1));
    assertThrows(IllegalArgumentException.class, () -> d.withWindow(8));
    assertThrows(IllegalArgumentException.class, () -> d.withMinExcess(Duration.ofNanos(-1)));
    assertThrows(IllegalArgumentException.class, () -> d.withRateLimit(0, Duration.ofSeconds(1)));
    assertThrows(IllegalArgumentException.class, () -> d.withRateLimit(1, Duration.ZERO));
    SlowCollectiveDetection env = InspectorConfig.builder().fromEnvironment(Map.of(
        "NCCL_INSPECTOR_SLOW_FACTOR", "8", "NCCL_INSPECTOR_SLOW_MIN_EXCESS_US", "100",
        "NCCL_INSPECTOR_SLOW_MAX_EVENTS", "2", "NCCL_INSPECTOR_SLOW_INTERVAL_MS", "60000")).build().slowCollectives();
    assertEquals(d.withFactor(8).withMinExcess(Duration.ofNanos(100_000)).withRateLimit(2, Duration.ofMinutes(1)), env);
    assertTrue(!InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_SLOW_FACTOR", "0")).build()
        .slowCollectives().enabled());
    assertEquals(Integer.MAX_VALUE, InspectorConfig.builder().fromEnvironment(Map.of(
        "NCCL_INSPECTOR_SLOW_MAX_EVENTS", "0")).build().slowCollectives().maxEventsPerInterval());
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_SLOW_FACTOR", "1.1")));
    assertTrue(bad.getMessage().contains("NCCL_INSPECTOR_SLOW_FACTOR"), bad.getMessage());
    IllegalArgumentException old = assertThrows(IllegalArgumentException.class,
        () -> InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_SLOW_SENSITIVITY", "8")));
    assertTrue(old.getMessage().contains("NCCL_INSPECTOR_SLOW_FACTOR"), old.getMessage());
  }

  private static CollectiveRecord copy(CollectiveRecord r, Quarantine q, TimingSource t, Set<RecordFlag> flags,
      long exec) {
    RecordBuilder b = RecordBuilder.from(r).quarantine(q).timingSource(t).executionNanos(exec);
    flags.forEach(b::flags);
    return b.buildCollective();
  }
}
