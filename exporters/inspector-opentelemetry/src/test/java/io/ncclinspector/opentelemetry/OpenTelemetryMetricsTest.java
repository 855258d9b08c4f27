package io.ncclinspector.opentelemetry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.NetworkBreakdown;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.export.MessageSizeLabel;
import io.ncclinspector.opentelemetry.internal.OpenTelemetryExporter;
import io.ncclinspector.replay.TracePlayer;
import io.ncclinspector.testkit.RecordBuilder;
import io.ncclinspector.testkit.SyntheticTrace;
import io.ncclinspector.testsupport.Await;
import io.ncclinspector.testsupport.LogCapture;
import io.ncclinspector.testsupport.TestData;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The OpenTelemetry metrics read back with the SDK's in-memory reader after a real replay. */
class OpenTelemetryMetricsTest {
  private static final List<Double> DURATION_BUCKETS = List.of(5e-6, 10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6,
      1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1.0, 2.5, 5.0, 10.0, 25.0, 50.0);
  private static final Set<String> BOUNDED_KEYS = Set.of("nccl.communicator.name", "nccl.communicator.id",
      "nccl.operation.name", "nccl.operation.kind", "nccl.algorithm", "nccl.protocol", "nccl.message_size");

  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();

  /** What the exporter must make of a record's class: the bounded attribute set. */
  static Attributes expectedAttributes(OperationRecord r) {
    var b = Attributes.builder().put("nccl.communicator.name", r.communicator().name())
        .put("nccl.communicator.id", r.communicator().idHex()).put("nccl.operation.name", r.operation())
        .put("nccl.operation.kind", r.kind().name().toLowerCase(Locale.ROOT))
        .put("nccl.message_size", MessageSizeLabel.format(r.transfer().messageBytes()));
    if (r instanceof CollectiveRecord c) {
      b.put("nccl.algorithm", c.algorithm().name()).put("nccl.protocol", c.algorithm().protocol());
    }
    return b.build();
  }

  static MetricData metric(Collection<MetricData> all, String name) {
    return all.stream().filter(m -> m.getName().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no metric " + name + " in " + all));
  }

  static long histogramCount(Collection<MetricData> all, String name) {
    return all.stream().filter(m -> m.getName().equals(name))
        .flatMap(m -> m.getHistogramData().getPoints().stream()).mapToLong(HistogramPointData::getCount).sum();
  }

  static long counter(Collection<MetricData> all, String name, Attributes attributes) {
    return metric(all, name).getLongSumData().getPoints().stream().filter(p -> p.getAttributes().equals(attributes))
        .mapToLong(LongPointData::getValue).sum();
  }

  /** Replays h3_mix (262 operations, 79 of them quarantined) with the exporter; returns the records heard. */
  private List<OperationRecord> replay(NcclInspector inspector) throws Exception {
    List<OperationRecord> seen = new CopyOnWriteArrayList<>();
    inspector.addListener(new InspectorListener() {
      @Override
      public void operationCompleted(OperationRecord record) {
        seen.add(record);
      }
    });
    try (TracePlayer player = TracePlayer.open(inspector, TestData.traceFiles("h3_mix").get(0))) {
      player.playAll();
    }
    Await.until(() -> seen.size() == 262);
    return seen;
  }

  private static InspectorConfig.Builder config(Path dir) {
    return InspectorConfig.builder().dumpDirectory(dir).jsonOutput(false).minMessageBytes(0).requireKernelTiming(false);
  }

  @Test
  void histogramsMatchTheRecordsWithBoundedAttributesAndCountersMatchTheInspector() throws Exception {
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    try (SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build();
         NcclInspector inspector = NcclInspector.enable(config(dir)
             .exporter(OpenTelemetryMetrics.builder(provider).build()).build())) {
      List<OperationRecord> timed = replay(inspector).stream()
          .filter(r -> r.timing().quarantine() == Quarantine.NONE).toList();
      Await.until(() -> histogramCount(reader.collectAllMetrics(), "nccl.operation.duration") == timed.size());
      Collection<MetricData> metrics = reader.collectAllMetrics();

      Map<Attributes, List<OperationRecord>> byClass = timed.stream()
          .collect(Collectors.groupingBy(OpenTelemetryMetricsTest::expectedAttributes));
      MetricData duration = metric(metrics, "nccl.operation.duration");
      assertEquals("s", duration.getUnit());
      assertEquals("io.ncclinspector", duration.getInstrumentationScopeInfo().getName());
      assertEquals(byClass.size(), duration.getHistogramData().getPoints().size());
      for (HistogramPointData p : duration.getHistogramData().getPoints()) {
        List<OperationRecord> rs = byClass.get(p.getAttributes());
        assertTrue(rs != null, "an attribute set no record has: " + p.getAttributes());
        assertTrue(BOUNDED_KEYS.containsAll(p.getAttributes().asMap().keySet().stream().map(AttributeKey::getKey)
            .toList()), p.getAttributes().toString());
        assertEquals(rs.size(), p.getCount(), p.getAttributes().toString());
        double seconds = rs.stream().mapToDouble(r -> r.timing().executionNanos() / 1e9).sum();
        assertEquals(seconds, p.getSum(), 1e-9 * rs.size());
        assertEquals(DURATION_BUCKETS, p.getBoundaries());
      }
      MetricData bandwidth = metric(metrics, "nccl.operation.bus_bandwidth");
      assertEquals("GBy/s", bandwidth.getUnit());
      for (HistogramPointData p : bandwidth.getHistogramData().getPoints()) {
        List<OperationRecord> rs = byClass.get(p.getAttributes());
        assertEquals(rs.stream().mapToDouble(r -> r.transfer().busBandwidthGbs()).sum(), p.getSum(), 1e-6);
      }

      assertEquals(262, counter(metrics, "nccl.inspector.records", Attributes.empty()));
      var counters = inspector.counters();
      assertEquals(counters.get(Quarantine.KERNEL_CHANNEL_DESYNC), counter(metrics, "nccl.inspector.quarantined",
          Attributes.of(AttributeKey.stringKey("nccl.inspector.reason"), "kernel_channel_desync")));
      assertEquals(262 - timed.size(), metric(metrics, "nccl.inspector.quarantined").getLongSumData().getPoints()
          .stream().mapToLong(LongPointData::getValue).sum(), "every quarantined record, by reason");
      assertEquals(counters.drops().keySet(), metric(metrics, "nccl.inspector.dropped").getLongSumData().getPoints()
          .stream().map(p -> p.getAttributes().get(AttributeKey.stringKey("nccl.inspector.reason")))
          .collect(Collectors.toSet()), "a point per drop reason, the exporter's own queue included");
      assertEquals(0, counter(metrics, "nccl.inspector.dropped",
          Attributes.of(AttributeKey.stringKey("nccl.inspector.reason"), "opentelemetry_backlog_full")));
    }
  }

  @Test
  void attributeSetsAreBoundedAndTheRestCounted() throws Exception {
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    try (SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build();
         NcclInspector inspector = NcclInspector.enable(config(dir)
             .exporter(OpenTelemetryMetrics.builder(provider).maxAttributeSets(3).build()).build())) {
      long timed = replay(inspector).stream().filter(r -> r.timing().quarantine() == Quarantine.NONE).count();
      Await.until(() -> {
        Collection<MetricData> m = reader.collectAllMetrics();
        return m.stream().anyMatch(x -> x.getName().equals("nccl.inspector.attribute_sets.overflow"))
            && histogramCount(m, "nccl.operation.duration")
                + counter(m, "nccl.inspector.attribute_sets.overflow", Attributes.empty()) == timed;
      });
      Collection<MetricData> metrics = reader.collectAllMetrics();
      assertEquals(3, metric(metrics, "nccl.operation.duration").getHistogramData().getPoints().size());
      assertTrue(counter(metrics, "nccl.inspector.attribute_sets.overflow", Attributes.empty()) > 0);
    }
    assertThrows(IllegalArgumentException.class,
        () -> OpenTelemetryMetrics.builder(SdkMeterProvider.builder().build()).maxAttributeSets(0).build());
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

  /** The points of a counter by their nccl.peer value. */
  static Map<String, Number> byPeer(Collection<MetricData> all, String name) {
    MetricData m = metric(all, name);
    AttributeKey<String> peer = AttributeKey.stringKey("nccl.peer");
    return m.getType() == MetricDataType.LONG_SUM
        ? m.getLongSumData().getPoints().stream().collect(Collectors.toMap(p -> p.getAttributes().get(peer),
            p -> (Number) p.getValue()))
        : m.getDoubleSumData().getPoints().stream().collect(Collectors.toMap(p -> p.getAttributes().get(peer),
            p -> (Number) p.getValue()));
  }

  static double doubleCounter(Collection<MetricData> all, String name, Attributes attributes) {
    return metric(all, name).getDoubleSumData().getPoints().stream()
        .filter(p -> p.getAttributes().equals(attributes)).mapToDouble(DoublePointData::getValue).sum();
  }

  @Test
  void networkCountersPerCommunicatorRankAndPeerTheRestFoldedIntoOther() throws Exception {
    CommunicatorInfo inter = new CommunicatorInfo(3, 0xdefL, "inter", 1, 16, 2, 5);
    CommunicatorInfo nvlink = new CommunicatorInfo(4, 0x123L, "intra", 0, 8, 1, 5);
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    try (SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build();
         NcclInspector inspector = NcclInspector.enable(config(dir)
             .exporter(OpenTelemetryMetrics.builder(provider).maxPeersPerCommunicator(2).build()).build())) {
      OpenTelemetryExporter exporter = inspector.exporter(OpenTelemetryExporter.class).orElseThrow();
      exporter.record(op(nvlink, NetworkBreakdown.NONE)); /* NVLink: no breakdown, no network counters */
      assertTrue(reader.collectAllMetrics().stream().noneMatch(m -> m.getName().startsWith("nccl.network.")));

      exporter.record(op(inter, net(4, 3_000_000)));
      exporter.record(op(inter, net(4, 1_000_000)));
      exporter.record(op(inter, net(9, 2_000_000)));
      exporter.record(op(inter, net(12, 500_000))); /* a third peer, waited for least: other */
      exporter.record(op(inter, net(-1, 0))); /* sends only: the totals, no peer */
      /* Quarantined (GPU timestamps): not in the histograms, its breakdown (host clock) counts. */
      exporter.record(RecordBuilder.from(op(inter, net(9, 1_000_000))).quarantine(Quarantine.GPU_TIMESTAMP_ZERO)
          .build());
      Collection<MetricData> m = reader.collectAllMetrics();
      Attributes rank = Attributes.builder().put("nccl.communicator.name", "inter")
          .put("nccl.communicator.id", "0xdef").put("nccl.communicator.rank", 1L).build();
      assertEquals(6, counter(m, "nccl.network.operations", rank));
      assertEquals(6000, counter(m, "nccl.network.io", rank.toBuilder().put("network.io.direction", "transmit").build()));
      assertEquals(12_000, counter(m, "nccl.network.io", rank.toBuilder().put("network.io.direction", "receive").build()));
      assertEquals("By", metric(m, "nccl.network.io").getUnit());
      assertEquals(300e-6, doubleCounter(m, "nccl.network.time", rank), 1e-12);
      assertEquals(42e-6, doubleCounter(m, "nccl.network.send_gpu_wait_time", rank), 1e-12);
      assertEquals("s", metric(m, "nccl.network.time").getUnit());
      assertTrue(metric(m, "nccl.network.time").getDoubleSumData().isMonotonic());
      assertEquals(Map.of("4", 2L, "9", 2L, "other", 1L), byPeer(m, "nccl.network.slowest_peer.operations"));
      assertEquals(2, counter(m, "nccl.network.slowest_peer.operations",
          rank.toBuilder().put("nccl.peer", "4").build()), "the peer's attributes: the rank's and nccl.peer");
      Map<String, Number> wait = byPeer(m, "nccl.network.slowest_peer.wait_time");
      assertEquals(4e-3, wait.get("4").doubleValue(), 1e-12);
      assertEquals(3e-3, wait.get("9").doubleValue(), 1e-12);
      assertEquals(0.5e-3, wait.get("other").doubleValue(), 1e-12);
      assertTrue(m.stream().filter(x -> x.getName().startsWith("nccl.network.")).flatMap(x -> x.getData()
          .getPoints().stream()).allMatch(p -> "inter".equals(p.getAttributes()
          .get(AttributeKey.stringKey("nccl.communicator.name")))), "the NVLink communicator has none");
      assertEquals(6, histogramCount(m, "nccl.operation.duration"), "the quarantined one is not timed");

      /* Peer 12 outwaits peer 9 (3 ms) by more than an eighth: it takes the label, 9 is no longer reported. */
      exporter.record(op(inter, net(12, 3_000_000)));
      Collection<MetricData> after = reader.collectAllMetrics();
      assertEquals(Map.of("4", 2L, "12", 1L, "other", 1L), byPeer(after, "nccl.network.slowest_peer.operations"));
      assertEquals(3e-3, byPeer(after, "nccl.network.slowest_peer.wait_time").get("12").doubleValue(), 1e-12);
    }
    assertEquals(8, OpenTelemetryMetrics.builder(SdkMeterProvider.builder().build()).build()
        .maxPeersPerCommunicator());
    assertThrows(IllegalArgumentException.class,
        () -> OpenTelemetryMetrics.builder(SdkMeterProvider.builder().build()).maxPeersPerCommunicator(0).build());
  }

  @Test
  void slowCollectivesAndSuspectedHangsAreCounted() throws Exception {
    logs.expect("WARN", "in flight for"); /* the watchdog's own line about the hang */
    long t0 = 1_795_942_870_000_000_000L;
    SyntheticTrace s = new SyntheticTrace().init(1, 0x51L, 0, 2);
    Random rnd = new Random(5);
    for (int i = 0; i < 60; i++) {
      long duration = i == 50 ? 200_000 : 10_000 + (long) (rnd.nextGaussian() * 500);
      int op = s.coll(1, "AllReduce", i, 1 << 20, "ncclFloat32", 1);
      int ch = s.kernelChannel(1, op, 0, t0 + i * 1_000_000L);
      s.stop(op).kernelChannelDone(ch, t0 + i * 1_000_000L + duration);
    }
    int op = s.coll(1, "ReduceScatter", 77, 1 << 20, "ncclFloat32", 1);
    int ch = s.kernelChannel(1, op, 0, t0 + 100_000_000L);
    s.stop(op).kernelChannelDone(ch, t0 + 100_500_000L).fini(1);
    Path trace = s.write(dir.resolve("t"), 3);
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    try (SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build();
         NcclInspector inspector = NcclInspector.enable(config(dir).hangTimeout(Duration.ofMillis(50))
             .exporter(OpenTelemetryMetrics.builder(provider).build()).build());
         TracePlayer player = TracePlayer.open(inspector, trace)) {
      player.play(1 + 60 * 5 + 3); /* the AllReduces, then the ReduceScatter until its channel started */
      Attributes hang = Attributes.builder().put("nccl.communicator.name", "synthetic")
          .put("nccl.communicator.id", "0x51").put("nccl.operation.name", "ReduceScatter").build();
      Await.until(() -> {
        Collection<MetricData> m = reader.collectAllMetrics();
        return m.stream().anyMatch(x -> x.getName().equals("nccl.inspector.slow_collectives"))
            && m.stream().anyMatch(x -> x.getName().equals("nccl.inspector.hangs_suspected"));
      });
      Collection<MetricData> metrics = reader.collectAllMetrics();
      List<LongPointData> slow = List.copyOf(metric(metrics, "nccl.inspector.slow_collectives").getLongSumData()
          .getPoints());
      assertEquals(1, slow.size(), slow::toString);
      assertEquals(1, slow.get(0).getValue());
      Attributes a = slow.get(0).getAttributes();
      assertEquals("AllReduce", a.get(AttributeKey.stringKey("nccl.operation.name")));
      assertEquals("0x51", a.get(AttributeKey.stringKey("nccl.communicator.id")));
      assertEquals(false, a.get(AttributeKey.booleanKey("nccl.slow_collective.rate_limited")));
      assertTrue(Set.of("waiting_for_peers", "slow_transfer", "unknown")
          .contains(a.get(AttributeKey.stringKey("nccl.slow_collective.kind"))), a.toString());
      assertEquals(1, counter(metrics, "nccl.inspector.hangs_suspected", hang), metrics::toString);
      player.playAll();
    }
  }
}
