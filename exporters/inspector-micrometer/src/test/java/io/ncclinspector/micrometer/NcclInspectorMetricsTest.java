package io.ncclinspector.micrometer;

import io.ncclinspector.testsupport.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.NetworkBreakdown;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.SlowCollectiveDetection;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.SlowCollectiveSummary;
import io.ncclinspector.export.MessageSizeLabel;
import io.ncclinspector.replay.TracePlayer;
import io.ncclinspector.testsupport.BimodalAllReduce;
import io.ncclinspector.testsupport.TestData;
import io.ncclinspector.testkit.RecordBuilder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NcclInspectorMetricsTest {
  @TempDir Path dir;


  private static String classOf(OperationRecord r) {
    String size = MessageSizeLabel.format(r.transfer().messageBytes());
    return r instanceof CollectiveRecord c
        ? r.operation() + "/" + c.algorithm().name() + "/" + c.algorithm().protocol() + "/" + size
        : r.operation() + "/" + size;
  }

  private static String classOf(Meter m) {
    Meter.Id id = m.getId();
    return id.getTag("algorithm") != null
        ? id.getTag("operation") + "/" + id.getTag("algorithm") + "/" + id.getTag("protocol") + "/" + id.getTag("message_size")
        : id.getTag("operation") + "/" + id.getTag("message_size");
  }

  @Test
  void metersMatchTheRecordsAndAreRemovedAtClose() throws Exception {
    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir)
        .jsonOutput(false).minMessageBytes(0).requireKernelTiming(false).build());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ConcurrentLinkedQueue<OperationRecord> seen = new ConcurrentLinkedQueue<>();
    try (NcclInspectorMetrics metrics = NcclInspectorMetrics.builder(inspector).tags("job", "test").build();
         NcclInspectorMetrics tiny = NcclInspectorMetrics.builder(inspector).maxOperationClasses(2).build()) {
      metrics.bindTo(registry);
      SimpleMeterRegistry tinyRegistry = new SimpleMeterRegistry();
      tiny.bindTo(tinyRegistry);
      inspector.addListener(new InspectorListener() {
        @Override
        public void operationCompleted(OperationRecord record) {
          seen.add(record);
        }
      });
      try (TracePlayer d = TracePlayer.open(inspector, TestData.traceFiles("h3_mix").get(0))) {
        d.playAll();
      }
      Await.until(() -> seen.size() == 262);
      List<OperationRecord> timed = seen.stream().filter(r -> r.timing().quarantine() == Quarantine.NONE).toList();
      Await.until(() -> registry.find("nccl.collective.exec.time").timers().stream().mapToLong(Timer::count).sum()
          + registry.find("nccl.p2p.exec.time").timers().stream().mapToLong(Timer::count).sum() == timed.size());

      /* Per class: count, total time and mean bandwidth equal what the records say. */
      Map<String, List<OperationRecord>> byClass = timed.stream().collect(Collectors.groupingBy(NcclInspectorMetricsTest::classOf));
      List<Timer> timers = new java.util.ArrayList<>(registry.find("nccl.collective.exec.time").timers());
      timers.addAll(registry.find("nccl.p2p.exec.time").timers());
      assertEquals(byClass.size(), timers.size());
      for (Timer t : timers) {
        List<OperationRecord> rs = byClass.get(classOf(t));
        assertEquals(rs.size(), t.count(), classOf(t));
        assertEquals(rs.stream().mapToLong(r -> r.timing().executionNanos()).sum(), t.totalTime(TimeUnit.NANOSECONDS), 1.0);
        assertEquals("test", t.getId().getTag("job"));
        assertEquals(rs.get(0).communicator().idHex(), t.getId().getTag("comm_id"));
        Set<String> keys = t.getId().getTags().stream().map(Tag::getKey).collect(Collectors.toSet());
        assertTrue(Set.of("job", "communicator", "comm_id", "operation", "message_size", "algorithm", "protocol")
            .containsAll(keys), "bounded tag keys only: " + keys);
      }
      for (DistributionSummary s : registry.find("nccl.collective.bus.bandwidth").summaries()) {
        List<OperationRecord> rs = byClass.get(classOf(s));
        assertEquals(rs.stream().mapToDouble(r -> r.transfer().busBandwidthGbs()).average().orElseThrow(), s.mean(), 1e-9);
        assertEquals("GB/s", s.getId().getBaseUnit());
      }

      /* Counters read the inspector's. */
      assertEquals(262.0, registry.get("nccl.inspector.records").functionCounter().count());
      for (Map.Entry<String, Long> drop : inspector.counters().drops().entrySet()) {
        FunctionCounter c = registry.get("nccl.inspector.dropped").tag("reason", drop.getKey()).functionCounter();
        assertEquals(drop.getValue().doubleValue(), c.count(), drop.getKey());
      }
      assertFalse(registry.find("nccl.inspector.dropped").functionCounters().isEmpty());
      assertEquals(1.0, registry.get("nccl.inspector.communicators").gauge().value()
          + (inspector.communicators().isEmpty() ? 1 : 0), "0 or 1 live communicator");

      /* Past the class limit operations are counted, not metered. */
      Await.until(() -> tinyRegistry.find("nccl.collective.exec.time").timers().stream().mapToLong(Timer::count).sum()
          + tinyRegistry.find("nccl.p2p.exec.time").timers().stream().mapToLong(Timer::count).sum()
          + tiny.overflow() == timed.size());
      assertEquals(2, tinyRegistry.find("nccl.collective.exec.time").timers().size()
          + tinyRegistry.find("nccl.p2p.exec.time").timers().size());
      assertTrue(tiny.overflow() > 0);
      assertEquals((double) tiny.overflow(), tinyRegistry.get("nccl.inspector.meters.overflow").functionCounter().count());

      metrics.close();
      assertEquals(List.of(), registry.getMeters(), "close removes the meters");
    } finally {
      inspector.close();
    }
  }

  /** A breakdown of 1000 bytes out, 2000 in, 50 µs on the network, 7 µs waiting for the own GPU. */
  static NetworkBreakdown net(int slowestPeer, long receiveWaitNanos) {
    return new NetworkBreakdown(1000, 2000, 1_000_000, 1_050_000, 7_000, receiveWaitNanos, slowestPeer,
        slowestPeer < 0 ? -1 : 0, slowestPeer < 0 ? 0 : 1_040_000, 2, 2, List.of());
  }

  static OperationRecord op(CommunicatorInfo c, NetworkBreakdown n) {
    return RecordBuilder.collective(c, "AllReduce").messageBytes(1 << 20).executionNanos(100_000)
        .busBandwidthGbs(20).network(n).build();
  }

  private static Map<String, Long> slowestByPeer(SimpleMeterRegistry registry) {
    return registry.find("nccl.network.slowest.peer.wait").functionTimers().stream()
        .collect(Collectors.toMap(t -> t.getId().getTag("peer"), t -> (long) t.count()));
  }

  @Test
  void networkMetersPerCommunicatorRankAndPeerTheRestFoldedIntoOther() throws Exception {
    CommunicatorInfo inter = new CommunicatorInfo(3, 0xdefL, "inter", 1, 16, 2, 5);
    CommunicatorInfo nvlink = new CommunicatorInfo(4, 0x123L, "intra", 0, 8, 1, 5);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir)
             .jsonOutput(false).build());
         NcclInspectorMetrics metrics = NcclInspectorMetrics.builder(inspector).tags("job", "test")
             .maxPeersPerCommunicator(2).build()) {
      metrics.bindTo(registry);
      metrics.record(op(inter, net(4, 3_000_000)));
      metrics.record(op(inter, net(4, 1_000_000)));
      metrics.record(op(inter, net(9, 2_000_000)));
      metrics.record(op(inter, net(12, 500_000))); /* a third peer, waited for least: other */
      metrics.record(op(inter, net(-1, 0))); /* sends only: the totals, no peer */
      /* Quarantined (GPU timestamps): not timed, its breakdown (host clock) counts. */
      metrics.record(RecordBuilder.from(op(inter, net(9, 1_000_000))).quarantine(Quarantine.GPU_TIMESTAMP_ZERO)
          .build());
      metrics.record(op(nvlink, NetworkBreakdown.NONE)); /* NVLink: no breakdown */

      assertEquals(Map.of("4", 2L, "9", 2L, "other", 1L), slowestByPeer(registry));
      FunctionTimer four = registry.get("nccl.network.slowest.peer.wait").tag("peer", "4").functionTimer();
      assertEquals(4.0, four.totalTime(TimeUnit.MILLISECONDS), 1e-9);
      assertEquals(Map.of("job", "test", "communicator", "inter", "comm_id", "0xdef", "rank", "1", "peer", "4"),
          four.getId().getTags().stream().collect(Collectors.toMap(Tag::getKey, Tag::getValue)));
      assertEquals(0.5, registry.get("nccl.network.slowest.peer.wait").tag("peer", "other").functionTimer()
          .totalTime(TimeUnit.MILLISECONDS), 1e-9);
      assertEquals(6000.0, registry.get("nccl.network.sent").tag("rank", "1").functionCounter().count());
      assertEquals("bytes", registry.get("nccl.network.sent").functionCounter().getId().getBaseUnit());
      assertEquals(12_000.0, registry.get("nccl.network.received").functionCounter().count());
      FunctionTimer time = registry.get("nccl.network.time").functionTimer();
      assertEquals(6.0, time.count());
      assertEquals(300.0, time.totalTime(TimeUnit.MICROSECONDS), 1e-9);
      assertEquals(42.0, registry.get("nccl.network.send.gpu.wait").functionTimer().totalTime(TimeUnit.MICROSECONDS),
          1e-9);
      assertTrue(registry.getMeters().stream().filter(m -> m.getId().getName().startsWith("nccl.network."))
          .allMatch(m -> "inter".equals(m.getId().getTag("communicator"))), "the NVLink communicator has none");
      assertEquals(5, registry.get("nccl.collective.exec.time").tag("communicator", "inter").timer().count(),
          "the quarantined one is not timed");

      /* Peer 12 outwaits peer 9 (3 ms) by more than an eighth: it takes the label, 9's meter goes. */
      metrics.record(op(inter, net(12, 3_000_000)));
      assertEquals(Map.of("4", 2L, "12", 1L, "other", 1L), slowestByPeer(registry));
      assertEquals(3.0, registry.get("nccl.network.slowest.peer.wait").tag("peer", "12").functionTimer()
          .totalTime(TimeUnit.MILLISECONDS), 1e-9, "from when it had the label");

      /* A registry bound later gets the same meters; close removes them. */
      SimpleMeterRegistry later = new SimpleMeterRegistry();
      metrics.bindTo(later);
      assertEquals(slowestByPeer(registry), slowestByPeer(later));
      assertEquals(7.0, later.get("nccl.network.time").functionTimer().count());
      assertEquals(0, metrics.overflow());
      metrics.close();
      assertEquals(List.of(), registry.getMeters());
      assertEquals(List.of(), later.getMeters());
      assertThrows(IllegalArgumentException.class,
          () -> NcclInspectorMetrics.builder(inspector).maxPeersPerCommunicator(0));
    }
  }

  @Test
  void slowCollectivesAreCountedByKindTheRateLimitedOnesIncluded() throws Exception {
    List<BimodalAllReduce.Op> ops = BimodalAllReduce.generate(4);
    Map<Integer, BimodalAllReduce.Op> plant = new java.util.HashMap<>();
    for (int i = 100; i < 900; i += 100) {
      plant.put(i, ops.get(i).waitingFor(2_000_000));
    }
    Path trace = BimodalAllReduce.trace(BimodalAllReduce.planted(ops, plant), dir.resolve("trace"), 77);
    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir).jsonOutput(false)
        .slowCollectives(SlowCollectiveDetection.defaults().withRateLimit(2, java.time.Duration.ofHours(1))).build());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    java.util.concurrent.atomic.AtomicLong callbacks = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicLong suppressed = new java.util.concurrent.atomic.AtomicLong();
    try (NcclInspectorMetrics metrics = NcclInspectorMetrics.builder(inspector).build()) {
      metrics.bindTo(registry);
      inspector.addListener(new InspectorListener() {
        @Override
        public void slowCollective(SlowCollectiveEvent e) {
          callbacks.incrementAndGet();
        }

        @Override
        public void slowCollectivesSuppressed(SlowCollectiveSummary s) {
          suppressed.addAndGet(s.suppressed());
        }
      });
      try (inspector; TracePlayer player = TracePlayer.open(inspector, new io.ncclinspector.replay.TraceReader()
          .read(trace), true)) {
        player.playAll();
      }
      assertEquals(2, callbacks.get());
      assertTrue(suppressed.get() >= 6, "the other planted ones at least: " + suppressed.get());
      double counted = registry.find("nccl.inspector.slow.collectives").counters().stream()
          .mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
      assertEquals(callbacks.get() + suppressed.get(), counted, 1e-9);
      assertTrue(registry.get("nccl.inspector.slow.collectives").tag("kind", "waiting_for_peers")
          .tag("operation", "AllReduce").counter().count() >= 8);
    }
  }
}
