package io.ncclinspector.report.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ncclinspector.report.output.OutputFiles;
import io.ncclinspector.report.synthetic.SyntheticConfig;
import io.ncclinspector.report.synthetic.SyntheticGenerator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report as a cluster runs it: {@code spark-submit --class
 * io.ncclinspector.report.spark.SparkReport inspector-report-spark-*-spark-submit.jar ...}. The
 * {@code spark-submit} script starts {@code org.apache.spark.deploy.SparkSubmit} with the jars of
 * the Spark installation and Spark's JDK openings; this test starts the same class the same way,
 * with Spark's jars from the build (and no report classes among them), in local mode. SparkSubmit
 * configures the session through system properties and calls the report's {@code main}, which
 * must find that session, write the report, and return (exit status 0), or exit with its status.
 */
class SparkSubmitIT {
  private static final long TIMEOUT_MINUTES = 5;

  private static List<String> sparkSubmit(Path tmp, String... arguments) throws IOException {
    String jar = System.getProperty("spark.submit.jar");
    // Set by the pom's spark-submit execution (integration-test phase, after the jar is built);
    // a run of this class by name in the test phase has no jar yet.
    Assumptions.assumeTrue(jar != null, "runs in the integration-test phase");
    Path classpath = Path.of(System.getProperty("spark.submit.classpath"));
    assertTrue(Files.isRegularFile(Path.of(jar)), jar + " (built in the package phase)");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(Arrays.asList(System.getProperty("spark.submit.jvm.options").trim()
        .split("\\s+")));
    command.addAll(List.of("-cp", Files.readString(classpath).trim(),
        "org.apache.spark.deploy.SparkSubmit", "--master", "local[2]",
        "--conf", "spark.ui.enabled=false",
        "--conf", "spark.driver.bindAddress=127.0.0.1", "--conf", "spark.driver.host=localhost",
        "--class", SparkReport.class.getName(), jar));
    command.addAll(Arrays.asList(arguments));
    return command;
  }

  /** Runs a command; returns its exit status, its output and errors in files under tmp. */
  private static int run(List<String> command, Path tmp, String name) throws Exception {
    Process p = new ProcessBuilder(command)
        .redirectOutput(tmp.resolve(name + ".out").toFile())
        .redirectError(tmp.resolve(name + ".err").toFile())
        .start();
    if (!p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
      p.destroyForcibly().waitFor();
      throw new AssertionError(name + ": spark-submit still running after " + TIMEOUT_MINUTES
          + " minutes; " + tail(tmp.resolve(name + ".err")));
    }
    return p.exitValue();
  }

  private static String tail(Path file) throws IOException {
    String s = Files.readString(file);
    return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
  }

  @Test
  void sparkSubmitRunsTheReportFromItsJar(@TempDir Path tmp) throws Exception {
    Path logs = tmp.resolve("logs");
    long records = SyntheticGenerator.generate(SyntheticConfig.builder(logs).nodes(1)
        .gpusPerNode(2).iterations(30).seed(8).straggler(1, 0.5, 300_000).build(), n -> { })
        .records();
    List<String> first = Files.readAllLines(logs.resolve("node00-pid10000.log")).subList(0, 3);
    Files.writeString(logs.resolve("damaged.log"), String.join("\n", first) + "\ngarbage {{{\n");
    records += first.size();
    Path out = tmp.resolve("out");

    int status = run(sparkSubmit(tmp, logs.toString(), "--out", out.toString(), "-q"), tmp,
        "report");

    assertEquals(0, status, tail(tmp.resolve("report.err")));
    String stdout = Files.readString(tmp.resolve("report.out"));
    assertTrue(stdout.contains(String.format(java.util.Locale.ROOT, "%,d records from 3 files (1"
        + " unusable lines skipped)", records)), stdout);
    JsonNode manifest = new ObjectMapper().readTree(out.resolve(OutputFiles.MANIFEST).toFile());
    JsonNode engine = manifest.get("engine");
    assertEquals("Apache Spark", engine.get("name").asText());
    List<String> settings = new ArrayList<>();
    engine.get("settings").forEach(n -> settings.add(n.asText()));
    // The session spark-submit configured (its master); with a local master the SQL settings it
    // was not given are those of the report's local mode.
    assertTrue(settings.containsAll(List.of("master local[2]", "session submitted",
        "spark.sql.shuffle.partitions 8")), settings.toString());
    assertTrue(Files.isRegularFile(out.resolve(OutputFiles.HTML)));
    assertTrue(Files.readString(out.resolve(OutputFiles.REJECTED)).contains("damaged.log"));
  }

  @Test
  void aReportThatCannotBeMadeFailsTheSubmission(@TempDir Path tmp) throws Exception {
    // A wrong command line: refused before Spark starts, with the usage and status 2.
    int status = run(sparkSubmit(tmp, "--out"), tmp, "usage");
    assertEquals(2, status, tail(tmp.resolve("usage.err")));
    assertTrue(Files.readString(tmp.resolve("usage.err")).contains("Missing required"),
        tail(tmp.resolve("usage.err")));
  }
}
