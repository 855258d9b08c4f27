package io.ncclinspector.jfr.internal;

import io.ncclinspector.jfr.JfrEvents;
import io.ncclinspector.spi.EnvironmentView;
import io.ncclinspector.spi.ExporterFactory;
import io.ncclinspector.spi.ExporterProvider;
import io.ncclinspector.spi.ExporterVariable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the JFR events on wherever this module is on the class path, unless
 * {@code NCCL_INSPECTOR_JFR=0} or the runtime has no Flight Recorder.
 */
public final class JfrExporterProvider implements ExporterProvider {
  private static final Logger log = LoggerFactory.getLogger(JfrExporterProvider.class);
  static final String VARIABLE = "NCCL_INSPECTOR_JFR";

  @Override
  public List<ExporterVariable> variables() {
    return List.of(new ExporterVariable(VARIABLE, "1",
        "emit JDK Flight Recorder events ([metrics](metrics.md#jdk-flight-recorder)); `0`: none"));
  }

  @Override
  public String name() {
    return JfrEvents.NAME;
  }

  @Override
  public Optional<ExporterFactory> fromEnvironment(Map<String, String> environment) {
    if (!EnvironmentView.of(environment).flag(VARIABLE).orElse(true)) {
      return Optional.empty();
    }
    if (!JfrEvents.available()) {
      log.info("NCCL Inspector: this Java runtime has no jdk.jfr module; JFR events are off");
      return Optional.empty();
    }
    return Optional.of(JfrExporterFactory.INSTANCE);
  }
}
