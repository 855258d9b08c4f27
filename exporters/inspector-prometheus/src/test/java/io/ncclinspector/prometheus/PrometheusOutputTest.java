package io.ncclinspector.prometheus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.testsupport.Await;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.testsupport.TestData;
import io.ncclinspector.prometheus.NodeExporter.Sample;
import io.ncclinspector.replay.TracePlayer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Prometheus textfile mode end to end: native core, dump thread, file, node_exporter. */
class PrometheusOutputTest {
  @TempDir Path dir;

  @Test
  void theReferenceEnvironmentTurnsItOnWithItsFloorAndLabels() {
    InspectorConfig c = InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_PROM_DUMP", "1",
        "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", "1000000", "SLURM_JOB_ID", "4711")).build();
    PrometheusTextfile p = (PrometheusTextfile) c.exporter(PrometheusTextfile.NAME).orElseThrow();
    assertFalse(c.jsonOutput(), "as in the reference, the textfile replaces JSON");
    assertEquals(Duration.ofSeconds(30), p.interval());
    assertEquals("4711", p.slurmJobId());
    InspectorConfig longer = InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_PROM_DUMP", "1",
        "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", "60000000")).build();
    PrometheusTextfile q = (PrometheusTextfile) longer.exporter(PrometheusTextfile.NAME).orElseThrow();
    assertEquals(Duration.ofSeconds(60), q.interval());
    assertEquals("unknown", q.slurmJobId());
    assertTrue(InspectorConfig.builder().fromEnvironment(Map.of()).build().exporter(PrometheusTextfile.NAME).isEmpty());
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> InspectorConfig.builder()
        .fromEnvironment(Map.of("NCCL_INSPECTOR_PROM_DUMP", "1")).discoverExporters(false).build());
    assertTrue(missing.getMessage().contains("inspector-prometheus"), missing.getMessage());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PrometheusTextfile.every(Duration.ofSeconds(5)));
    assertEquals(PrometheusTextfile.every(PrometheusTextfile.MIN_INTERVAL), PrometheusTextfile.exporter(),
        "the entry point with defaults: the reference's 30 s");
    assertTrue(e.getMessage().contains("at least PT30S"), e.getMessage());
    // Issue 21: -1 turned JSON output off as if it were 1; the provider reads the switch as the core does.
    for (String v : new String[] {"-1", "2", " 5"}) {
      IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
          () -> InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_PROM_DUMP", v)).build());
      assertEquals("NCCL_INSPECTOR_PROM_DUMP must be 0 or 1, got '" + v + "'", bad.getMessage());
      IllegalArgumentException provider = assertThrows(IllegalArgumentException.class,
          () -> new io.ncclinspector.prometheus.internal.PrometheusTextfileProvider()
              .fromEnvironment(Map.of("NCCL_INSPECTOR_PROM_DUMP", v)));
      assertEquals(bad.getMessage(), provider.getMessage());
    }
  }

  @Test
  void aReplayedRunEndsUpInTheTextfileAndNodeExporterReadsIt() throws Exception {
    NodeExporter.assumeInstalled("a replayed run's textfile read by node_exporter (PrometheusOutputTest)");
    Path out = dir.resolve("textfiles");
    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(out)
        .jsonOutput(false).minMessageBytes(0).requireKernelTiming(false)
        .exporter(PrometheusTextfile.every(Duration.ofMinutes(10)).withSlurmJobId("99")).build());
    Path file = out.resolve("nccl_inspector_metrics_unknown.prom");
    try {
      try (TracePlayer d = TracePlayer.open(inspector, TestData.traceFiles("h3_mix").get(0))) {
        d.playAll();
      }
      Await.until(() -> inspector.status().records().received() == 262);
      assertFalse(Files.exists(file), "nothing is written before the interval");
      inspector.flush();
      Await.until(() -> inspector.exporter(TextfileExporter.class).orElseThrow().files()
          .contains(file.toAbsolutePath()));
      long quarantined = inspector.counters().totalQuarantined();

      try (NodeExporter exporter = NodeExporter.start(out)) {
        List<Sample> s = exporter.samplesOrFail();
        double counted = s.stream().filter(x -> x.name().equals("nccl_inspector_collective_exec_time_seconds_count")
            || x.name().equals("nccl_inspector_p2p_exec_time_seconds_count")).mapToDouble(Sample::value).sum();
        assertEquals(262 - quarantined, (long) counted);
        List<Sample> gauges = s.stream().filter(x -> x.name().equals("nccl_bus_bandwidth_gbs")).toList();
        assertFalse(gauges.isEmpty());
        CommunicatorInfo comm = inspector.snapshot().communicators().get(0).communicator();
        for (Sample g : gauges) {
          assertEquals("99", g.labels().get("slurm_job_id"));
          assertEquals("unknown", g.labels().get("gpu"));
          assertEquals(Integer.toString(comm.ranks()), g.labels().get("nranks"));
          assertTrue(g.labels().get("message_size").matches("\\d+-\\d+(B|KB|MB|GB|TB)"), g.labels().toString());
          assertTrue(g.labels().get("algo_proto").matches("[A-Z_]+_(LL|LL128|SIMPLE)"), g.labels().toString());
        }
        assertEquals(262.0, s.stream().filter(x -> x.name().equals("nccl_inspector_records_total"))
            .findFirst().orElseThrow().value());
      }
    } finally {
      inspector.close();
    }
    assertFalse(Files.exists(file), "removed at close, as the reference does");
    try (var left = Files.list(out)) {
      assertEquals(List.of(), left.toList());
    }
    assertEquals(0, inspector.status().records().written(), "JSON output is off");
  }
}
