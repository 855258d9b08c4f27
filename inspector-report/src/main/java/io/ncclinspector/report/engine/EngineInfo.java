package io.ncclinspector.report.engine;

import java.util.List;

/**
 * Which engine computed a report, for {@code report.json} and the HTML report.
 *
 * @param name e.g. {@code DuckDB}, {@code Apache Spark}
 * @param version its version
 * @param percentiles how percentiles were computed (exact, or the approximation and its error)
 * @param extensionsLoaded DuckDB: the extensions loaded and how (all built in); Spark: empty
 * @param settings engine settings worth knowing when comparing runs (Spark: master, parallelism)
 */
public record EngineInfo(String name, String version, String percentiles,
    List<String> extensionsLoaded, List<String> settings) {
  public EngineInfo {
    extensionsLoaded = List.copyOf(extensionsLoaded);
    settings = List.copyOf(settings);
  }
}
