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
    // The provider reads a switch as the core does: 0 or 1 (issue 21: -1 and 2 were "on").
    for (String v : new String[] {"-1", "2", "2147483648", "garbage"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> new io.ncclinspector.opentelemetry.internal.OpenTelemetryProvider()
              .fromEnvironment(Map.of("NCCL_INSPECTOR_OTEL", v)));
      assertEquals("NCCL_INSPECTOR_OTEL must be 0 or 1, got '" + v + "'", e.getMessage());
    }
  }

  @Test
  void theEntryPointWithDefaultsIsTheBuildersDefaults() {
    OpenTelemetryMetrics m = OpenTelemetryMetrics.exporter(io.opentelemetry.api.OpenTelemetry.noop());
    OpenTelemetryMetrics b = OpenTelemetryMetrics.builder(io.opentelemetry.api.OpenTelemetry.noop()).build();
    assertEquals(OpenTelemetryMetrics.NAME, m.name());
    assertEquals(b.maxAttributeSets(), m.maxAttributeSets());
    assertEquals(b.maxPeersPerCommunicator(), m.maxPeersPerCommunicator());
    /* The provider declares its variable, for the configuration reference and the ignored-variables check. */
    assertEquals(java.util.List.of("NCCL_INSPECTOR_OTEL"), new io.ncclinspector.opentelemetry.internal
        .OpenTelemetryProvider().variables().stream().map(io.ncclinspector.spi.ExporterVariable::name).toList());
    assertTrue(InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_OTEL", "0")).build()
        .ignoredVariables().isEmpty(), "read by this module's provider");
  }
}
