package io.ncclinspector.report.spark;

import java.net.URISyntaxException;
import java.net.URL;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark session of a report. Inside a program that already has a session (a Spark
 * application, a notebook), that session is used as it is and left running; under {@code
 * spark-submit} the report starts the session spark-submit configured; otherwise it starts Spark in local mode on
 * this machine, with the web UI off and Spark's logging turned down to warnings.
 */
final class SparkSessions {
  /** The log4j2 configuration of local mode: warnings only, without the usual startup noise. */
  static final String LOCAL_LOGGING = "io/ncclinspector/report/spark/log4j2-local.properties";

  private SparkSessions() {}

  /** The application name of a session the report starts, unless spark-submit was given one. */
  static final String APP_NAME = "nccl-inspector report";

  /**
   * A session and whether this report started it (and so stops it).
   *
   * @param how {@code existing}, {@code submitted} (configured by spark-submit) or {@code local}
   */
  record Started(SparkSession session, boolean owned, String how) {}

  static Started start(int threads) {
    Optional<SparkSession> existing = running(SparkSession.getActiveSession())
        .or(() -> running(SparkSession.getDefaultSession()));
    if (existing.isPresent()) {
      // A Spark application (or a notebook) that runs the report: its session, its settings;
      // the application stops it, not the report.
      return new Started(existing.get(), false, "existing");
    }
    if (System.getProperty("spark.master") != null) {
      return new Started(submitted(), true, "submitted");
    }
    quietLogging();
    SparkSession.Builder local = SparkSession.builder().appName(APP_NAME)
        .master("local[" + threads + "]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "localhost");
    LOCAL_SQL.forEach((k, v) -> local.config(k, v.apply(threads)));
    return new Started(local.getOrCreate(), true, "local");
  }

  /** SQL settings for one machine, by its number of cores. */
  private static final java.util.Map<String, java.util.function.IntFunction<String>> LOCAL_SQL =
      java.util.Map.of(
          // Few, larger shuffle partitions suit one machine.
          "spark.sql.shuffle.partitions", cores -> Integer.toString(Math.max(4, cores * 4)),
          // Adaptive execution re-plans every stage: on one machine it costs the report's many
          // small queries more than it saves.
          "spark.sql.adaptive.enabled", cores -> "false");

  /**
   * The session of a report run by spark-submit, which hands its settings ({@code --master},
   * {@code --conf} ...) to the application as system properties, where the session's builder
   * finds them. They are kept as they are; only with a local master ({@code --master local[N]})
   * the SQL settings not given take the values of the report's own local mode (Spark's defaults,
   * 200 shuffle partitions and adaptive execution, are made for clusters).
   */
  private static SparkSession submitted() {
    SparkSession.Builder b = SparkSession.builder();
    if (System.getProperty("spark.app.name") == null) {
      b.appName(APP_NAME);
    }
    SparkSession s = b.getOrCreate();
    if (s.sparkContext().isLocal()) {
      int cores = s.sparkContext().defaultParallelism();
      LOCAL_SQL.forEach((k, v) -> {
        if (!s.sparkContext().getConf().contains(k)) {
          s.conf().set(k, v.apply(cores));
        }
      });
    }
    return s;
  }

  /** The session, unless it is absent or its context was stopped. */
  private static Optional<SparkSession> running(scala.Option<SparkSession> session) {
    return session.isDefined() && !session.get().sparkContext().isStopped()
        ? Optional.of(session.get()) : Optional.empty();
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
