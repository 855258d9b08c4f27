package io.ncclinspector.opentelemetry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.replay.TracePlayer;
import io.ncclinspector.testsupport.Await;
import io.ncclinspector.testsupport.TestData;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics on the wire: the SDK's OTLP/HTTP exporter sends them to a receiver in the test, which
 * decodes the protobuf; what arrives is what the records say.
 */
class OtlpExportTest {
  @TempDir Path dir;

  @Test
  void anOtlpExportCarriesTheHistogramsAndCounters() throws Exception {
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      /* An hour between periodic exports: the one export of this test is the forced flush. */
      PeriodicMetricReader reader = PeriodicMetricReader.builder(OtlpHttpMetricExporter.builder()
          .setEndpoint(receiver.endpoint()).build()).setInterval(Duration.ofHours(1)).build();
      List<OperationRecord> seen = new CopyOnWriteArrayList<>();
      long[] timed = {0};
      try (SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build()) {
        try (NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir)
            .jsonOutput(false).minMessageBytes(0).requireKernelTiming(false)
            .exporter(OpenTelemetryMetrics.builder(provider).build()).build())) {
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
          timed[0] = seen.stream().filter(r -> r.timing().quarantine() == Quarantine.NONE).count();
          /* The exporter's thread records after the listener's heard: flush until the export has them all. */
          Await.until(() -> {
            provider.forceFlush().join(10, TimeUnit.SECONDS);
            return receiver.requests().stream().map(OtlpExportTest::scope).mapToLong(s -> durationCount(s)).max()
                .orElse(0) == timed[0];
          });
        }
      }
      assertEquals(List.of(), receiver.problems());
      /* The first export with every record, made while the inspector was active (after it closed, its
         counters are no longer observed: the provider's export at its own close has the histograms only). */
      ScopeMetrics last = receiver.requests().stream().map(OtlpExportTest::scope)
          .filter(s -> durationCount(s) == timed[0]).findFirst().orElseThrow();
      Set<String> names = last.getMetricsList().stream().map(Metric::getName).collect(Collectors.toSet());
      assertTrue(names.containsAll(Set.of("nccl.operation.duration", "nccl.operation.bus_bandwidth",
          "nccl.inspector.records", "nccl.inspector.dropped", "nccl.inspector.quarantined")), names.toString());
      Metric duration = metric(last, "nccl.operation.duration");
      assertEquals("s", duration.getUnit());
      double seconds = seen.stream().filter(r -> r.timing().quarantine() == Quarantine.NONE)
          .mapToDouble(r -> r.timing().executionNanos() / 1e9).sum();
      assertEquals(seconds, duration.getHistogram().getDataPointsList().stream()
          .mapToDouble(HistogramDataPoint::getSum).sum(), 1e-6);
      for (HistogramDataPoint p : duration.getHistogram().getDataPointsList()) {
        Set<String> keys = p.getAttributesList().stream().map(KeyValue::getKey).collect(Collectors.toSet());
        assertTrue(keys.contains("nccl.operation.name") && keys.contains("nccl.message_size")
            && !keys.contains("nccl.sequence"), keys.toString());
        assertEquals(23, p.getExplicitBoundsCount() + 1, "22 bounds and the bucket above them");
      }
      assertEquals(262, metric(last, "nccl.inspector.records").getSum().getDataPoints(0).getAsInt());
      assertTrue(metric(last, "nccl.inspector.records").getSum().getIsMonotonic());
    }
  }

  private static ScopeMetrics scope(io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest r) {
    return r.getResourceMetricsList().stream().flatMap(rm -> rm.getScopeMetricsList().stream())
        .filter(s -> s.getScope().getName().equals(OpenTelemetryMetrics.METER_NAME)).findFirst()
        .orElse(ScopeMetrics.getDefaultInstance());
  }

  private static long durationCount(ScopeMetrics s) {
    return s.getMetricsList().stream().filter(m -> m.getName().equals("nccl.operation.duration"))
        .flatMap(m -> m.getHistogram().getDataPointsList().stream()).mapToLong(HistogramDataPoint::getCount).sum();
  }

  private static Metric metric(ScopeMetrics s, String name) {
    return s.getMetricsList().stream().filter(m -> m.getName().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no " + name));
  }
}
