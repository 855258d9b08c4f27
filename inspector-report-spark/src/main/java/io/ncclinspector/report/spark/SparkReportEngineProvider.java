package io.ncclinspector.report.spark;

import io.ncclinspector.report.ReportOptions;
import io.ncclinspector.report.engine.ReportEngine;
import io.ncclinspector.report.engine.ReportEngineProvider;
import java.nio.file.Path;

/** {@code --engine spark}: found by {@link java.util.ServiceLoader} when this module is present. */
public final class SparkReportEngineProvider implements ReportEngineProvider {
  @Override
  public String name() {
    return "spark";
  }

  @Override
  public ReportEngine open(ReportOptions options, Path staging) {
    return new SparkReportEngine(SparkSessions.start(options.threads()), options);
  }
}
