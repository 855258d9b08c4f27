package io.ncclinspector.opentelemetry.internal;

import io.ncclinspector.opentelemetry.OpenTelemetryMetrics;
import io.ncclinspector.spi.EnvironmentView;
import io.ncclinspector.spi.ExporterFactory;
import io.ncclinspector.spi.ExporterProvider;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.ncclinspector.spi.ExporterVariable;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code NCCL_INSPECTOR_OTEL=1}: metrics into {@code GlobalOpenTelemetry} (the OpenTelemetry Java
 * agent's, or SDK autoconfiguration's), without code. Off by default: without a configured SDK the
 * global instance records nothing.
 */
public final class OpenTelemetryProvider implements ExporterProvider {
  static final String VARIABLE = "NCCL_INSPECTOR_OTEL";

  @Override
  public List<ExporterVariable> variables() {
    return List.of(new ExporterVariable(VARIABLE, "0",
        "`1`: OpenTelemetry metrics into `GlobalOpenTelemetry` ([metrics](metrics.md#opentelemetry))"));
  }

  @Override
  public String name() {
    return OpenTelemetryMetrics.NAME;
  }

  @Override
  public Optional<ExporterFactory> fromEnvironment(Map<String, String> environment) {
    return EnvironmentView.of(environment).flag(VARIABLE).orElse(false)
        ? Optional.of(OpenTelemetryMetrics.builder(GlobalOpenTelemetry.get()).build()) : Optional.empty();
  }
}
