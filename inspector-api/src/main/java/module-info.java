/**
 * NCCL Inspector for the JVM: {@code NcclInspector.enable()}, its configuration, records,
 * listeners, snapshots and status ({@code io.ncclinspector}), the interface exporters plug
 * into ({@code io.ncclinspector.spi}) and the helpers metric exporters share
 * ({@code io.ncclinspector.export}). Everything else (the dump thread, the decoder, the
 * statistics, the native binding) is internal and not exported.
 */
module io.ncclinspector {
  requires jdk.unsupported; /* com.sun.nio.file.ExtendedOpenOption.DIRECT: JSON files with O_DIRECT */
  requires io.ncclinspector.nativecore;
  requires io.ncclinspector.format;
  requires com.fasterxml.jackson.core;
  requires com.fasterxml.jackson.databind;
  requires com.fasterxml.jackson.datatype.jsr310;
  requires org.slf4j;

  exports io.ncclinspector;
  exports io.ncclinspector.spi;
  exports io.ncclinspector.export;

  /* Snapshots are written as JSON by Jackson, which reads the records reflectively. */
  opens io.ncclinspector to com.fasterxml.jackson.databind;

  uses io.ncclinspector.spi.ExporterProvider;
}
