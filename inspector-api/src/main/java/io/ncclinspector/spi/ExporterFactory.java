package io.ncclinspector.spi;

/**
 * Starts an exporter when an inspector starts. Added to a configuration with
 * {@code InspectorConfig.builder().exporter(factory)}, or turned on by an {@link ExporterProvider}
 * found on the class path. A factory is a value: the same one may start exporters for several
 * inspectors, one after the other.
 */
public interface ExporterFactory {

  /**
   * A short name, lower case letters, digits and underscores ({@code prometheus}, {@code jfr}):
   * it names the exporter's thread ({@code nccl-inspector-<name>}) and its queue's drop counter
   * ({@code <name>_backlog_full}), and a configuration holds at most one exporter of each name.
   */
  String name();

  /**
   * Starts an exporter. Called once per inspector, from {@code NcclInspector.enable()}, before
   * the first event. An exception fails {@code enable()}.
   */
  InspectorExporter start(ExporterContext context);
}
