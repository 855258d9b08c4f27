package io.ncclinspector.report.spark;

import io.ncclinspector.report.ReportCommand;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The entry point for {@code spark-submit}: {@code nccl-inspector report} with the Spark engine.
 * Takes the same arguments (an {@code --engine} given is respected).
 */
public final class SparkReport {
  private SparkReport() {}

  public static void main(String[] args) {
    List<String> all = new ArrayList<>(Arrays.asList(args));
    boolean engineGiven = all.stream().anyMatch(a -> a.equals("--engine")
        || a.startsWith("--engine="));
    if (!engineGiven) {
      all.add(0, "--engine=spark");
    }
    ReportCommand.main(all.toArray(String[]::new));
  }
}
