/** The inspector's JDK Flight Recorder events ({@code JfrEvents}: their names and the exporter). */
module io.ncclinspector.jfr {
  requires transitive io.ncclinspector;
  requires jdk.jfr;
  requires org.slf4j;

  exports io.ncclinspector.jfr;

  provides io.ncclinspector.spi.ExporterProvider with io.ncclinspector.jfr.internal.JfrExporterProvider;
}
