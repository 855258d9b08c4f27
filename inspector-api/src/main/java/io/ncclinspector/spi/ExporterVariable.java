package io.ncclinspector.spi;

import java.util.Objects;

/**
 * An environment variable an {@link ExporterProvider} reads, as the configuration reference
 * (docs/configuration.md) lists it; the core tells a variable that no module on the class path
 * declares ({@code InspectorConfig.ignoredVariables()}).
 *
 * @param name the variable, {@code NCCL_INSPECTOR_...}
 * @param defaultText its default as the reference states it
 * @param description what it does, one Markdown sentence
 */
public record ExporterVariable(String name, String defaultText, String description) {
  public ExporterVariable {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(defaultText, "defaultText");
    Objects.requireNonNull(description, "description");
    if (!name.startsWith(InspectorVariables.PREFIX)) {
      throw new IllegalArgumentException("an exporter's variable starts with " + InspectorVariables.PREFIX + ": "
          + name);
    }
  }
}
