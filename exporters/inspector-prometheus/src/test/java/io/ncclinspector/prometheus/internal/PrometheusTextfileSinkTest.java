package io.ncclinspector.prometheus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.EventCounters;
import io.ncclinspector.NetworkBreakdown;
import io.ncclinspector.P2pRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.export.MessageSizeLabel;
import io.ncclinspector.export.NetworkPeers;
import io.ncclinspector.prometheus.NodeExporter.Sample;
import io.ncclinspector.prometheus.NodeExporter;
import io.ncclinspector.prometheus.PrometheusTextfile;
import io.ncclinspector.testkit.RecordBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrometheusTextfileSinkTest {
  private static final String UUID0 = "GPU-0c1a7e52-9a3b-4f0e-8d2c-000000000000";
  private static final String UUID1 = "GPU-0c1a7e52-9a3b-4f0e-8d2c-111111111111";
  private static final CommunicatorInfo DP0 = new CommunicatorInfo(1, 0xabcL, "dp \"main\"", 0, 8, 1, 5, 0, UUID0);
  private static final CommunicatorInfo DP1 = new CommunicatorInfo(2, 0xabcL, "dp \"main\"", 1, 8, 1, 5, 1, UUID1);
  /** Rank 1 of 16 ranks on 2 nodes: its operations cross the network. */
  private static final CommunicatorInfo NET1 = new CommunicatorInfo(3, 0xdefL, "inter", 1, 16, 2, 5, 1, UUID1);

  @TempDir Path dir;

  static CollectiveRecord coll(CommunicatorInfo c, String op, long bytes, long execNanos, double busBw) {
    return RecordBuilder.collective(c, op).sequence(1).messageBytes(bytes).channels(4, 4).warps(8)
        .executionNanos(execNanos).algorithmBandwidthGbs(busBw).busBandwidthGbs(busBw).gpu(1, execNanos, 0)
        .startWallNanos(1).buildCollective();
  }

  static P2pRecord p2p(CommunicatorInfo c, String op, long bytes, long execNanos, double busBw) {
    return (P2pRecord) RecordBuilder.p2p(c, op).sequence(1).messageBytes(bytes).channels(1, 1)
        .executionNanos(execNanos).algorithmBandwidthGbs(busBw).busBandwidthGbs(busBw).gpu(1, execNanos, 0)
        .startWallNanos(1).build();
  }

  /** The sink's clock: nanoseconds the test moves. */
  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  private PrometheusTextfileSink sink(boolean removeOnClose) {
    return sink(removeOnClose, NetworkPeers.DEFAULT_MAX_PEERS);
  }

  private PrometheusTextfileSink sink(boolean removeOnClose, int maxPeers) {
    return new PrometheusTextfileSink(dir, Duration.ofSeconds(30), removeOnClose, "node-a", 4242, "77",
        () -> new EventCounters(Map.of("ring_full", 3L), Map.of(), Map.of(Quarantine.GPU_TIMESTAMP_ZERO, 1L)), () -> 10,
        maxPeers, now::get);
  }

  /** A breakdown of 1000 bytes out, 2000 in, 50 µs on the network, 7 µs waiting for the own GPU. */
  static NetworkBreakdown net(int slowestPeer, long receiveWaitNanos) {
    return new NetworkBreakdown(1000, 2000, 1_000_000, 1_050_000, 7_000, receiveWaitNanos, slowestPeer,
        slowestPeer < 0 ? -1 : 0, slowestPeer < 0 ? 0 : 1_040_000, 2, 2, List.of());
  }

  static CollectiveRecord coll(CommunicatorInfo c, NetworkBreakdown n) {
    return RecordBuilder.from(coll(c, "AllReduce", 1 << 20, 100_000, 20)).network(n).buildCollective();
  }

  private static Sample one(List<Sample> samples, String name, Predicate<Map<String, String>> labels) {
    List<Sample> found = samples.stream().filter(s -> s.name().equals(name) && labels.test(s.labels())).toList();
    assertEquals(1, found.size(), name + ": " + found);
    return found.get(0);
  }

  private static Predicate<Map<String, String>> gpuSize(String gpu, String size) {
    return l -> gpu.equals(l.get("gpu")) && size.equals(l.get("message_size"));
  }

  @Test
  void writesTheReferenceSeriesAndHistogramsPerGpuReadableByNodeExporter() throws Exception {
    NodeExporter.assumeInstalled("per-GPU textfiles parsed by node_exporter (PrometheusTextfileSinkTest)");
    PrometheusTextfileSink sink = sink(true);
    sink.operationCompleted(coll(DP0, "AllReduce", 8192, 20_000, 100));
    sink.operationCompleted(coll(DP0, "AllReduce", 8192 + 100, 40_000, 400)); /* same bucket: 8-9KB */
    sink.operationCompleted(coll(DP0, "AllReduce", 1L << 20, 30_000_000, 0)); /* no bandwidth: left out of the mean */
    sink.operationCompleted(coll(DP1, "AllGather", 9L << 29, 5_000, 250)); /* 4.5 GiB */
    sink.operationCompleted(p2p(DP0, "Send", 65536, 10_000, 50));
    sink.operationCompleted(coll(NET1, net(4, 3_000_000))); /* network counters: node_exporter takes them too */
    sink.flushNow();

    assertEquals(Set.of(sink.gpuFile(UUID0), sink.gpuFile(UUID1), sink.processFile()), sink.files());
    assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
        PosixFilePermission.GROUP_READ, PosixFilePermission.OTHERS_READ),
        Files.getPosixFilePermissions(sink.gpuFile(UUID0)));
    try (NodeExporter exporter = NodeExporter.start(dir)) {
      List<Sample> s = exporter.samplesOrFail();
      Sample bw = one(s, "nccl_bus_bandwidth_gbs", gpuSize("GPU0", "8-9KB"));
      assertEquals(200.0, bw.value(), 1e-9); /* geometric mean of 100 and 400 */
      assertEquals(Map.of("version", "v5.1", "slurm_job_id", "77", "node", "node-a", "gpu", "GPU0",
          "comm_name", "dp \"main\"", "n_nodes", "1", "nranks", "8", "collective", "AllReduce",
          "message_size", "8-9KB", "algo_proto", "RING_SIMPLE"), bw.labels());
      assertEquals(30.0, one(s, "nccl_collective_exec_time_microseconds", gpuSize("GPU0", "8-9KB")).value(), 1e-9);
      assertEquals(0.0, one(s, "nccl_bus_bandwidth_gbs", gpuSize("GPU0", "1-2MB")).value());
      assertEquals(30_000.0, one(s, "nccl_collective_exec_time_microseconds", gpuSize("GPU0", "1-2MB")).value());
      assertEquals(250.0, one(s, "nccl_bus_bandwidth_gbs", gpuSize("GPU1", "4-5GB")).value(), 1e-9);
      Sample send = one(s, "nccl_p2p_bus_bandwidth_gbs", gpuSize("GPU0", "64-65KB"));
      assertEquals("Send", send.labels().get("p2p_operation"));
      assertFalse(send.labels().containsKey("algo_proto"));
      assertEquals(10.0, one(s, "nccl_p2p_exec_time_microseconds", gpuSize("GPU0", "64-65KB")).value(), 1e-9);

      /* Histograms: 20 µs falls in le=25e-6, 40 µs in le=50e-6. */
      Predicate<Map<String, String>> small = gpuSize("GPU0", "8-9KB");
      assertEquals(2, one(s, "nccl_inspector_collective_exec_time_seconds_count", small).value());
      assertEquals(60e-6, one(s, "nccl_inspector_collective_exec_time_seconds_sum", small).value(), 1e-12);
      assertEquals(0, one(s, "nccl_inspector_collective_exec_time_seconds_bucket",
          small.and(l -> l.get("le").equals("1e-05"))).value());
      assertEquals(1, one(s, "nccl_inspector_collective_exec_time_seconds_bucket",
          small.and(l -> l.get("le").equals("2.5e-05"))).value());
      assertEquals(2, one(s, "nccl_inspector_collective_exec_time_seconds_bucket",
          small.and(l -> l.get("le").equals("5e-05"))).value());
      assertEquals(1, one(s, "nccl_inspector_collective_bus_bandwidth_gbs_bucket",
          small.and(l -> l.get("le").equals("100"))).value());
      assertEquals(2, one(s, "nccl_inspector_collective_bus_bandwidth_gbs_bucket",
          small.and(l -> l.get("le").equals("+Inf"))).value());
      assertEquals(1, one(s, "nccl_inspector_p2p_exec_time_seconds_count", gpuSize("GPU0", "64-65KB")).value());
      assertEquals(3e-3, one(s, "nccl_inspector_network_slowest_peer_wait_seconds_total",
          l -> "4".equals(l.get("peer"))).value(), 1e-12);
      assertEquals(1000, one(s, "nccl_inspector_network_sent_bytes_total", l -> "GPU1".equals(l.get("gpu"))).value());

      /* Process-wide counters. */
      assertEquals(10, one(s, "nccl_inspector_records_total", l -> "4242".equals(l.get("pid"))).value());
      assertEquals(3, one(s, "nccl_inspector_dropped_total", l -> "ring_full".equals(l.get("reason"))).value());
      assertEquals(1, one(s, "nccl_inspector_quarantined_total",
          l -> "gpu_timestamp_zero".equals(l.get("reason"))).value());
    }

    /* Next interval: only GPU0 saw operations. GPU1's file stays as it was; GPU0's gauges cover the
       new interval only, its histograms keep counting. */
    FileTime longAgo = FileTime.fromMillis(0); /* a rewrite would make it now */
    Files.setLastModifiedTime(sink.gpuFile(UUID1), longAgo);
    String gpu1Text = Files.readString(sink.gpuFile(UUID1));
    sink.operationCompleted(coll(DP0, "AllReduce", 8192, 80_000, 25));
    sink.flushNow();
    assertEquals(longAgo, Files.getLastModifiedTime(sink.gpuFile(UUID1)));
    assertEquals(gpu1Text, Files.readString(sink.gpuFile(UUID1)));
    try (NodeExporter exporter = NodeExporter.start(dir)) {
      List<Sample> s = exporter.samplesOrFail();
      assertEquals(25.0, one(s, "nccl_bus_bandwidth_gbs", gpuSize("GPU0", "8-9KB")).value(), 1e-9);
      assertEquals(80.0, one(s, "nccl_collective_exec_time_microseconds", gpuSize("GPU0", "8-9KB")).value(), 1e-9);
      assertTrue(s.stream().noneMatch(x -> x.name().equals("nccl_bus_bandwidth_gbs")
          && gpuSize("GPU0", "1-2MB").test(x.labels())), "a series without new operations has no gauge");
      assertEquals(3, one(s, "nccl_inspector_collective_exec_time_seconds_count", gpuSize("GPU0", "8-9KB")).value());
      assertEquals(1, one(s, "nccl_inspector_collective_exec_time_seconds_count", gpuSize("GPU0", "1-2MB")).value());
      assertEquals(250.0, one(s, "nccl_bus_bandwidth_gbs", gpuSize("GPU1", "4-5GB")).value(), 1e-9);
    }

    sink.close();
    assertEquals(Set.of(), sink.files());
    try (var left = Files.list(dir)) {
      assertEquals(List.of(), left.toList(), "files are removed at close and no temporary file is left");
    }
  }

  @Test
  void networkCountersPerCommunicatorRankAndPeerTheRestFoldedIntoOther() throws Exception {
    PrometheusTextfileSink sink = sink(true, 2);
    sink.operationCompleted(coll(NET1, net(4, 3_000_000)));
    sink.operationCompleted(coll(NET1, net(4, 1_000_000)));
    sink.operationCompleted(coll(NET1, net(9, 2_000_000)));
    sink.operationCompleted(coll(NET1, net(12, 500_000))); /* a third peer, waited for least: other */
    sink.operationCompleted(coll(NET1, net(-1, 0))); /* sends only: the totals, no peer */
    /* Quarantined (GPU timestamps): out of the time series, its breakdown (host clock) counts. */
    sink.operationCompleted(RecordBuilder.from(coll(NET1, net(9, 1_000_000)))
        .quarantine(Quarantine.GPU_TIMESTAMP_ZERO).build());
    sink.operationCompleted(coll(DP1, "AllReduce", 1 << 20, 100_000, 20)); /* NVLink: no breakdown */
    sink.flushNow();

    List<Sample> s = NodeExporter.samples(Files.readString(sink.gpuFile(UUID1)));
    Predicate<Map<String, String>> inter = l -> "inter".equals(l.get("comm_name"));
    Sample ops = one(s, "nccl_inspector_network_operations_total", inter);
    assertEquals(6, ops.value());
    assertEquals(Map.of("version", "v5.1", "slurm_job_id", "77", "node", "node-a", "gpu", "GPU1",
        "comm_name", "inter", "n_nodes", "2", "nranks", "16", "rank", "1"), ops.labels());
    assertEquals(6000, one(s, "nccl_inspector_network_sent_bytes_total", inter).value());
    assertEquals(12_000, one(s, "nccl_inspector_network_received_bytes_total", inter).value());
    assertEquals(6 * 50e-6, one(s, "nccl_inspector_network_time_seconds_total", inter).value(), 1e-12);
    assertEquals(6 * 7e-6, one(s, "nccl_inspector_network_send_gpu_wait_seconds_total", inter).value(), 1e-12);
    Map<String, Double> slowest = byPeer(s, "nccl_inspector_network_slowest_peer_operations_total");
    assertEquals(Map.of("4", 2.0, "9", 2.0, "other", 1.0), slowest);
    Map<String, Double> wait = byPeer(s, "nccl_inspector_network_slowest_peer_wait_seconds_total");
    assertEquals(Set.of("4", "9", "other"), wait.keySet());
    assertEquals(4e-3, wait.get("4"), 1e-12);
    assertEquals(3e-3, wait.get("9"), 1e-12);
    assertEquals(0.5e-3, wait.get("other"), 1e-12);
    assertTrue(s.stream().filter(x -> x.name().startsWith("nccl_inspector_network_"))
        .allMatch(x -> inter.test(x.labels())), "the NVLink communicator has no network series");
    assertEquals(5, one(s, "nccl_inspector_collective_exec_time_seconds_count", inter).value(),
        "the time series leave the quarantined one out as before");
    /* Only the quarantined record with a breakdown saw a GPU: its file holds the network series only. */
    String uuid2 = "GPU-0c1a7e52-9a3b-4f0e-8d2c-222222222222";
    CommunicatorInfo q = new CommunicatorInfo(4, 0x99L, "q", 0, 4, 2, 5, 2, uuid2);
    sink.operationCompleted(RecordBuilder.from(coll(q, net(3, 10))).quarantine(Quarantine.GPU_TIMESTAMP_ZERO).build());
    sink.flushNow();
    List<Sample> only = NodeExporter.samples(Files.readString(sink.gpuFile(uuid2)));
    assertEquals(Map.of("3", 1.0), byPeer(only, "nccl_inspector_network_slowest_peer_operations_total"));
    assertTrue(only.stream().allMatch(x -> x.name().startsWith("nccl_inspector_network_")), only::toString);
  }

  @Test
  void withoutABreakdownNoNetworkSeriesAndTheLimitsHold() throws Exception {
    PrometheusTextfileSink sink = sink(true);
    sink.operationCompleted(coll(DP0, "AllReduce", 8192, 20_000, 100));
    sink.operationCompleted(RecordBuilder.from(coll(DP0, "AllReduce", 8192, 20_000, 100))
        .quarantine(Quarantine.GPU_TIMESTAMP_ZERO).build());
    sink.flushNow();
    assertFalse(Files.readString(sink.gpuFile(UUID0)).contains("nccl_inspector_network_"));
    /* Default: 8 peers keep their label, the ninth is other. */
    for (int peer = 0; peer < 9; peer++) {
      sink.operationCompleted(coll(NET1, net(peer, 1000 - peer)));
    }
    sink.flushNow();
    Map<String, Double> slowest = byPeer(NodeExporter.samples(Files.readString(sink.gpuFile(UUID1))),
        "nccl_inspector_network_slowest_peer_operations_total");
    assertEquals(Set.of("0", "1", "2", "3", "4", "5", "6", "7", "other"), slowest.keySet());
    assertEquals(0, sink.seriesOverflow());
    /* Communicator ranks past the limit: counted. */
    for (int i = 0; i < NetworkPeers.DEFAULT_MAX_COMMUNICATORS + 3; i++) {
      sink.operationCompleted(coll(new CommunicatorInfo(100 + i, i, "n" + i, 0, 16, 2, 5, 1, UUID1), net(1, 1)));
    }
    assertEquals(4, sink.seriesOverflow(), "NET1 and 255 more fit");
    assertThrows(IllegalArgumentException.class, () -> sink(true, 0));
    assertEquals(NetworkPeers.DEFAULT_MAX_PEERS, PrometheusTextfile.every(Duration.ofSeconds(30))
        .maxPeersPerCommunicator());
    assertEquals(3, PrometheusTextfile.every(Duration.ofSeconds(30)).withMaxPeersPerCommunicator(3)
        .maxPeersPerCommunicator());
    assertThrows(IllegalArgumentException.class,
        () -> PrometheusTextfile.every(Duration.ofSeconds(30)).withMaxPeersPerCommunicator(0));
  }

  private static Map<String, Double> byPeer(List<Sample> samples, String name) {
    return samples.stream().filter(x -> x.name().equals(name))
        .collect(java.util.stream.Collectors.toMap(x -> x.labels().get("peer"), Sample::value));
  }

  @Test
  void writesOnlyWhenTheIntervalHasPassedUnlessAsked() throws Exception {
    PrometheusTextfileSink sink = sink(false);
    sink.operationCompleted(coll(DP0, "AllReduce", 8192, 20_000, 100));
    now.addAndGet(Duration.ofSeconds(30).toNanos() - 1);
    sink.flush();
    assertFalse(Files.exists(sink.gpuFile(UUID0)), "1 ns short of the interval");
    now.incrementAndGet();
    sink.flush();
    assertTrue(Files.exists(sink.gpuFile(UUID0)), "30 s since the sink started");
    Files.delete(sink.gpuFile(UUID0));
    sink.operationCompleted(coll(DP0, "AllReduce", 8192, 20_000, 100));
    now.addAndGet(Duration.ofSeconds(29).toNanos());
    sink.flush();
    assertFalse(Files.exists(sink.gpuFile(UUID0)), "29 s since the last write");
    sink.flushNow();
    assertTrue(Files.exists(sink.gpuFile(UUID0)), "asked for: written at once");
    Files.delete(sink.gpuFile(UUID0));
    sink.operationCompleted(coll(DP0, "AllReduce", 8192, 20_000, 100));
    sink.close(); /* kept files: the last state is written */
    assertTrue(Files.exists(sink.gpuFile(UUID0)));
    assertTrue(Files.readString(sink.gpuFile(UUID0)).contains("nccl_bus_bandwidth_gbs{"));
  }

  @Test
  void quarantinedRecordsAndSeriesPastTheLimitAreLeftOutAndCounted() throws Exception {
    PrometheusTextfileSink sink = sink(true);
    CollectiveRecord ok = coll(DP0, "AllReduce", 8192, 20_000, 100);
    sink.operationCompleted(RecordBuilder.collective(DP0, "AllReduce").sequence(1).count(1).messageBytes(8192)
        .channels(1, 1).warps(8).executionNanos(1).algorithmBandwidthGbs(1).busBandwidthGbs(1).gpu(1, 1, 0)
        .quarantine(Quarantine.GPU_TIMESTAMP_ZERO).startWallNanos(1).build());
    for (int i = 0; i < PrometheusTextfileSink.MAX_SERIES_PER_GPU + 10; i++) {
      CommunicatorInfo c = new CommunicatorInfo(100 + i, i, "comm" + i, 0, 2, 1, 5, 0, UUID0);
      sink.operationCompleted(coll(c, ok.operation(), 8192, 20_000, 100));
    }
    assertEquals(10, sink.seriesOverflow());
    sink.flushNow();
    String text = Files.readString(sink.gpuFile(UUID0));
    assertEquals(PrometheusTextfileSink.MAX_SERIES_PER_GPU,
        text.lines().filter(l -> l.startsWith("nccl_bus_bandwidth_gbs{")).count());
    assertFalse(text.contains("comm" + PrometheusTextfileSink.MAX_SERIES_PER_GPU + "\""));
  }

  @Test
  void aReaderNeverSeesAHalfWrittenFile() throws Exception {
    PrometheusTextfileSink sink = sink(true);
    for (int i = 0; i < 300; i++) {
      sink.operationCompleted(coll(new CommunicatorInfo(i, i, "c" + i, 0, 2, 1, 5, 0, UUID0), "AllReduce", 8192, 20_000, 100));
    }
    sink.flushNow();
    String complete = Files.readString(sink.gpuFile(UUID0));
    long families = complete.lines().filter(l -> l.startsWith("# TYPE")).count();
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicReference<String> torn = new AtomicReference<>();
    Thread reader = new Thread(() -> {
      while (writing.get() && torn.get() == null) {
        try {
          String t = Files.readString(sink.gpuFile(UUID0));
          if (!t.endsWith("\n") || t.lines().filter(l -> l.startsWith("# TYPE")).count() != families) {
            torn.set(t);
          }
        } catch (Exception e) {
          torn.set(e.toString());
        }
      }
    });
    reader.start();
    for (int round = 0; round < 60; round++) {
      for (int i = 0; i < 300; i++) {
        sink.operationCompleted(coll(new CommunicatorInfo(i, i, "c" + i, 0, 2, 1, 5, 0, UUID0), "AllReduce", 8192, 20_000, 100));
      }
      sink.flushNow();
    }
    writing.set(false);
    reader.join();
    assertEquals(null, torn.get());
  }

  @Test
  void messageSizeLabelsMatchTheReference() {
    MessageSizeLabel l = new MessageSizeLabel();
    assertEquals("0-1B", l.of(0));
    assertEquals("512-513B", l.of(512));
    assertEquals("1023-1024B", l.of(1023));
    assertEquals("1-2KB", l.of(1024));
    assertEquals("8-9KB", l.of(8192));
    assertEquals("8-9KB", l.of(9215));
    assertEquals("1-2MB", l.of(1536 * 1024));
    assertEquals("512-513MB", l.of(512L << 20));
    assertEquals("4-5GB", l.of(9L << 29));
    assertEquals("2048-2049TB", l.of(1L << 51));
    assertEquals(8192, MessageSizeLabel.bucketKey(9215));
  }
}
