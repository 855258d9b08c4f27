package io.ncclinspector.micrometer;

import io.ncclinspector.testsupport.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.SlowCollectiveDetection;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.SlowCollectiveSummary;
import io.ncclinspector.export.MessageSizeLabel;
import io.ncclinspector.replay.TracePlayer;
import io.ncclinspector.testsupport.BimodalAllReduce;
import io.ncclinspector.testsupport.TestData;
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
