/** Micrometer meters of an inspector ({@code NcclInspectorMetrics}, a {@code MeterBinder}). */
module io.ncclinspector.micrometer {
  requires transitive io.ncclinspector;
  requires micrometer.core; /* an automatic module: not re-exported (a user has it already) */

  exports io.ncclinspector.micrometer;
}
