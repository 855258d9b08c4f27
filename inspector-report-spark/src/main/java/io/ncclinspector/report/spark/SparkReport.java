package io.ncclinspector.report.spark;

import io.ncclinspector.report.ReportCommand;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The entry point for {@code spark-submit}: {@code nccl-inspector report} with the Spark engine,
 * in the session spark-submit configured. Takes the same arguments (an {@code --engine} given is
 * respected).
 *
 * <p>A report written returns from {@code main}, the usual end of a Spark application (an exit
 * of the JVM from inside {@code main} can pre-empt the cluster manager's record of its success);
 * a report that could not be made exits with its status (1 no usable input or an error, 2 a
 * wrong command line), so that spark-submit and the cluster report a failure.
 */
public final class SparkReport {
  private SparkReport() {}

  public static void main(String[] args) {
    int status = run(System.out, System.err, args);
    if (status != 0) {
      System.exit(status);
    }
  }

  /** Runs the report with the Spark engine; returns the exit status. */
  static int run(PrintStream out, PrintStream err, String... args) {
    List<String> all = new ArrayList<>(Arrays.asList(args));
    boolean engineGiven = all.stream().anyMatch(a -> a.equals("--engine")
        || a.startsWith("--engine="));
    if (!engineGiven) {
      all.add(0, "--engine=spark");
    }
    return ReportCommand.run(all.toArray(String[]::new), out, err);
  }
}
