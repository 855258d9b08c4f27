package io.ncclinspector.report.spark;

import java.net.URISyntaxException;
import java.net.URL;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark session of a report. Under {@code spark-submit} (or inside a program that already has
 * a session) the configured one is used as it is; otherwise the report starts Spark in local
 * mode on this machine, with the web UI off and Spark's logging turned down to warnings.
 */
final class SparkSessions {
  /** The log4j2 configuration of local mode: warnings only, without the usual startup noise. */
  static final String LOCAL_LOGGING = "io/ncclinspector/report/spark/log4j2-local.properties";

  private SparkSessions() {}

  /** A session and whether this report started it (and so stops it). */
  record Started(SparkSession session, boolean owned, boolean local) {}

  static Started start(int threads) {
    scala.Option<SparkSession> existing = SparkSession.getActiveSession().isDefined()
        ? SparkSession.getActiveSession() : SparkSession.getDefaultSession();
    if (existing.isDefined()) {
      return new Started(existing.get(), false, existing.get().sparkContext().isLocal());
    }
    boolean submitted = System.getProperty("spark.master") != null;
    SparkSession.Builder b = SparkSession.builder().appName("nccl-inspector report");
    boolean local = !submitted;
    if (local) {
      quietLogging();
      b.master("local[" + threads + "]")
          .config("spark.ui.enabled", "false")
          // Few, larger shuffle partitions suit one machine; adaptive execution merges them
          // further.
          .config("spark.sql.shuffle.partitions", Integer.toString(Math.max(4, threads * 4)))
          // Adaptive execution re-plans every stage: on one machine it costs the report's many
          // small queries more than it saves.
          .config("spark.sql.adaptive.enabled", "false")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.driver.host", "localhost");
    }
    return new Started(b.getOrCreate(), true, local);
  }

  /**
   * Points log4j2 at the report's configuration unless the user chose one: Spark's default
   * prints dozens of INFO lines at startup.
   */
  private static void quietLogging() {
    if (System.getProperty("log4j2.configurationFile") != null
        || System.getProperty("log4j.configurationFile") != null) {
      return;
    }
    URL config = SparkSessions.class.getClassLoader().getResource(LOCAL_LOGGING);
    if (config == null) {
      return;
    }
    try {
      org.apache.logging.log4j.core.config.Configurator.reconfigure(config.toURI());
    } catch (URISyntaxException | RuntimeException | LinkageError e) {
      // Logging stays as it was: noisier, not wrong.
    }
  }
}
