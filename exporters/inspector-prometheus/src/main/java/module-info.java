/**
 * Prometheus textfiles ({@code PrometheusTextfile}): the reference Inspector's
 * {@code NCCL_INSPECTOR_PROM_DUMP=1} output, an exporter of the inspector.
 */
module io.ncclinspector.prometheus {
  requires transitive io.ncclinspector;
  requires io.prometheus.metrics.model;
  requires io.prometheus.writer.text;
  requires org.slf4j;

  exports io.ncclinspector.prometheus;

  provides io.ncclinspector.spi.ExporterProvider with io.ncclinspector.prometheus.internal.PrometheusTextfileProvider;
}
