package io.ncclinspector;

import io.ncclinspector.replay.TracePlayer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.NodeExporter.Sample;
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
    assertTrue(c.prometheus().enabled());
    assertFalse(c.jsonOutput(), "as in the reference, the textfile replaces JSON");
    assertEquals(Duration.ofSeconds(30), c.prometheus().interval());
    assertEquals("4711", c.prometheus().slurmJobId());
    InspectorConfig longer = InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_PROM_DUMP", "1",
        "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", "60000000")).build();
    assertEquals(Duration.ofSeconds(60), longer.prometheus().interval());
    assertEquals("unknown", longer.prometheus().slurmJobId());
    assertFalse(InspectorConfig.builder().fromEnvironment(Map.of()).build().prometheus().enabled());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PrometheusTextfile.every(Duration.ofSeconds(5)));
    assertTrue(e.getMessage().contains("at least PT30S"), e.getMessage());
  }

  @Test
  void aReplayedRunEndsUpInTheTextfileAndNodeExporterReadsIt() throws Exception {
    NodeExporter.assumeInstalled("a replayed run's textfile read by node_exporter (PrometheusOutputTest)");
    Path out = dir.resolve("textfiles");
    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(out)
        .jsonOutput(false).minMessageBytes(0).requireKernelTiming(false)
        .prometheus(PrometheusTextfile.every(Duration.ofMinutes(10)).withSlurmJobId("99")).build());
    Path file = out.resolve("nccl_inspector_metrics_unknown.prom");
    try {
      try (TracePlayer d = TracePlayer.open(inspector, TestData.traceFiles("h3_mix").get(0))) {
        d.playAll();
      }
      Await.until(() -> inspector.recordsReceived() == 262);
      assertFalse(Files.exists(file), "nothing is written before the interval");
      inspector.flush();
      Await.until(() -> inspector.prometheusFiles().contains(file.toAbsolutePath()));
      long quarantined = inspector.counters().quarantined().values().stream().mapToLong(Long::longValue).sum();

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
    assertEquals(0, inspector.recordsWritten(), "JSON output is off");
  }
}
