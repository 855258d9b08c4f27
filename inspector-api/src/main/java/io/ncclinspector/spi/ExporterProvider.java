package io.ncclinspector.spi;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Found with {@link java.util.ServiceLoader} on the class path (or module path): an exporter module
 * that starts without code, from the environment. When a configuration is built with exporter
 * discovery on (the default), each provider is asked once with the environment the configuration
 * was read from ({@code InspectorConfig.fromEnvironment()}; an empty map for a configuration made
 * in code), and the factory it returns is added unless the configuration names an exporter of that
 * name already. So a job turns the Prometheus textfiles on with {@code NCCL_INSPECTOR_PROM_DUMP=1}
 * once {@code inspector-prometheus} is on its class path, and JFR events are on wherever
 * {@code inspector-jfr} is, unless {@code NCCL_INSPECTOR_JFR=0}.
 */
public interface ExporterProvider {

  /** The name of the exporters this provider makes ({@link ExporterFactory#name()}). */
  String name();

  /**
   * The exporter the environment asks for, if any.
   *
   * @throws IllegalArgumentException naming the variable, if one of the provider's variables is
   *     malformed
   */
  Optional<ExporterFactory> fromEnvironment(Map<String, String> environment);

  /**
   * The environment variables this provider reads, for the configuration reference and so that the
   * core knows them as read ({@code InspectorConfig.ignoredVariables()} lists the others); none by
   * default.
   */
  default List<ExporterVariable> variables() {
    return List.of();
  }
}
