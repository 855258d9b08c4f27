package io.ncclinspector.report.engine;

import io.ncclinspector.report.engine.duckdb.DuckDbReportEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;

/** Finds the engine {@code --engine} names. */
public final class Engines {
  /** The default engine. */
  public static final String DUCKDB = "duckdb";
  /** The engine of the module {@code inspector-report-spark}. */
  public static final String SPARK = "spark";

  private Engines() {}

  /**
   * The provider of an engine.
   *
   * @throws IllegalArgumentException with what to do, when no such engine is on the class path
   */
  public static ReportEngineProvider provider(String name) {
    String wanted = name.toLowerCase(Locale.ROOT);
    if (wanted.equals(DUCKDB)) {
      return new DuckDbReportEngine.Provider();
    }
    List<String> found = new ArrayList<>(List.of(DUCKDB));
    for (ReportEngineProvider p : ServiceLoader.load(ReportEngineProvider.class)) {
      if (p.name().equals(wanted)) {
        return p;
      }
      found.add(p.name());
    }
    if (wanted.equals(SPARK)) {
      throw new IllegalArgumentException("the Spark engine is not on the class path. It is the"
          + " module inspector-report-spark: build it (mvn -B -q package -DskipTests) and run"
          + " bin/nccl-inspector report --engine spark, which adds it and Apache Spark to the"
          + " class path; or run inspector-report-spark's jar with spark-submit (see"
          + " inspector-report-spark/README.md)");
    }
    throw new IllegalArgumentException("unknown engine '" + name + "' (available: "
        + String.join(", ", found) + ")");
  }
}
