package io.ncclinspector.opentelemetry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.InspectorConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** NCCL_INSPECTOR_OTEL turns the exporter on through the SPI, found by ServiceLoader on the class path. */
class OpenTelemetryProviderTest {
  @Test
  void theVariableTurnsTheExporterOnAndBadValuesAreRefused() {
    assertTrue(InspectorConfig.builder().fromEnvironment(Map.of()).build().exporter(OpenTelemetryMetrics.NAME)
        .isEmpty(), "off unless asked for: without a configured SDK the global instance records nothing");
    assertTrue(InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_OTEL", "0")).build()
        .exporter(OpenTelemetryMetrics.NAME).isEmpty());
    var on = InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_OTEL", " 1 ")).build()
        .exporter(OpenTelemetryMetrics.NAME).orElseThrow();
    assertTrue(on instanceof OpenTelemetryMetrics, on.toString());
    assertEquals(512, ((OpenTelemetryMetrics) on).maxAttributeSets());
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_OTEL", "yes")).build());
    assertTrue(bad.getMessage().contains("NCCL_INSPECTOR_OTEL"), bad.getMessage());
  }
}
