package io.ncclinspector.jfr.internal;

import io.ncclinspector.jfr.JfrEvents;
import io.ncclinspector.spi.ExporterContext;
import io.ncclinspector.spi.ExporterFactory;
import io.ncclinspector.spi.InspectorExporter;

/** Starts {@link JfrExporter}s. */
public final class JfrExporterFactory implements ExporterFactory {
  public static final JfrExporterFactory INSTANCE = new JfrExporterFactory();

  private JfrExporterFactory() {}

  @Override
  public String name() {
    return JfrEvents.NAME;
  }

  @Override
  public InspectorExporter start(ExporterContext context) {
    return new JfrExporter(context::snapshot);
  }
}
