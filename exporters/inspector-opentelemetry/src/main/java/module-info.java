/**
 * OpenTelemetry metrics of an inspector ({@code OpenTelemetryMetrics}): an exporter that records
 * through the OpenTelemetry metrics API into whatever SDK the application configured.
 */
module io.ncclinspector.opentelemetry {
  requires transitive io.ncclinspector;
  requires io.opentelemetry.api; /* an automatic module: not re-exported (a user has it already) */
  requires io.opentelemetry.context;
  requires org.slf4j;

  exports io.ncclinspector.opentelemetry;

  provides io.ncclinspector.spi.ExporterProvider with io.ncclinspector.opentelemetry.internal.OpenTelemetryProvider;
}
