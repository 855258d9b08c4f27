package io.ncclinspector.report;

import io.ncclinspector.report.synthetic.LogFormat;
import io.ncclinspector.report.synthetic.SyntheticConfig;
import io.ncclinspector.report.synthetic.SyntheticGenerator;
import io.ncclinspector.report.synthetic.SyntheticResult;
import io.ncclinspector.report.synthetic.Workload;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Generates synthetic Inspector logs of a multi-node job: for tests, benchmarks, and trying the
 * report without a GPU cluster. A straggler and unsynchronised node clocks can be planted. A test
 * fixture: it is in the report's test-jar ({@code inspector-report-*-tests.jar}), not in the report.
 *
 * <pre>
 * java -cp ... io.ncclinspector.report.SyntheticLogs --out DIR [--records N | --iterations N]
 *     [--nodes 2] [--gpus-per-node 4] [--workload TRAINING|WORLD_ALLREDUCE] [--format JVM|REFERENCE]
 *     [--gzip] [--slow-rank R --late-probability P --late-us U] [--clock-offset-us NODE=US]...
 *     [--uint8-probability P] [--threads N] [--seed S]
 * </pre>
 */
@Command(name = "synthetic-logs", mixinStandardHelpOptions = true,
    description = "Writes synthetic NCCL Inspector logs (one file per rank) of a simulated job.")
public final class SyntheticLogs implements Callable<Integer> {
  @Option(names = "--out", required = true, description = "Output directory.")
  Path out;
  @Option(names = "--records", description = "Generate at least this many records in total.")
  Long records;
  @Option(names = "--iterations", defaultValue = "100",
      description = "Iterations to simulate (ignored with --records). Default: ${DEFAULT-VALUE}.")
  long iterations;
  @Option(names = "--nodes", defaultValue = "2") int nodes;
  @Option(names = "--gpus-per-node", defaultValue = "4") int gpusPerNode;
  @Option(names = "--workload", defaultValue = "TRAINING",
      description = "TRAINING or WORLD_ALLREDUCE. Default: ${DEFAULT-VALUE}.")
  Workload workload;
  @Option(names = "--format", defaultValue = "JVM",
      description = "JVM (this project's records) or REFERENCE. Default: ${DEFAULT-VALUE}.")
  LogFormat format;
  @Option(names = "--gzip", description = "Write .log.gz files.") boolean gzip;
  @Option(names = "--slow-rank", defaultValue = "-1", description = "Global rank that arrives late.")
  int slowRank;
  @Option(names = "--late-probability", defaultValue = "0.3") double lateProbability;
  @Option(names = "--late-us", defaultValue = "2000") double lateMicros;
  @Option(names = "--clock-offset-us", split = ",",
      description = "NODE=MICROSECONDS: that node's GPU clocks run ahead by this much.")
  List<String> clockOffsets = new ArrayList<>();
  @Option(names = "--uint8-probability", defaultValue = "0") double uint8Probability;
  @Option(names = "--threads", description = "Writer threads. Default: available processors.")
  Integer threads;
  @Option(names = "--seed", defaultValue = "1") long seed;

  @Spec CommandSpec commandSpec; /* errors go to the command line's own streams */
  private PrintStream report = System.out;
  private PrintStream progressOut = System.err;

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    SyntheticLogs command = new SyntheticLogs();
    command.report = out;
    command.progressOut = err;
    CommandLine cli = new CommandLine(command);
    cli.setOut(new java.io.PrintWriter(out, true));
    cli.setErr(new java.io.PrintWriter(err, true));
    return cli.execute(args);
  }

  @Override
  public Integer call() throws Exception {
    SyntheticConfig.Builder b = SyntheticConfig.builder(out)
        .nodes(nodes).gpusPerNode(gpusPerNode).workload(workload).format(format).gzip(gzip)
        .straggler(slowRank, slowRank < 0 ? 0 : lateProbability, Math.round(lateMicros * 1000))
        .uint8Probability(uint8Probability).seed(seed).nodeClockOffsetsNanos(offsets());
    if (threads != null) {
      b.threads(threads);
    }
    if (records != null) {
      b.targetRecords(records);
    } else {
      b.iterations(iterations);
    }
    SyntheticConfig config = b.build();
    long start = System.nanoTime();
    long[] lastPrint = {start};
    SyntheticResult r = SyntheticGenerator.generate(config, written -> {
      long now = System.nanoTime();
      if (now - lastPrint[0] > 2_000_000_000L) {
        lastPrint[0] = now;
        progressOut.printf(Locale.ROOT, "synthetic-logs: %,d records written%n", written);
      }
    });
    double seconds = (System.nanoTime() - start) / 1e9;
    report.printf(Locale.ROOT, "%,d records in %d files, %,d bytes, %d iterations, %.1f s -> %s%n",
        r.records(), r.files().size(), r.bytes(), r.iterations(), seconds, out);
    return 0;
  }

  private List<Long> offsets() {
    List<Long> result = new ArrayList<>();
    for (String spec : clockOffsets) {
      String[] kv = spec.split("=", 2);
      if (kv.length != 2) {
        throw new CommandLine.ParameterException(commandSpec.commandLine(),
            "--clock-offset-us expects NODE=MICROSECONDS, got '" + spec + "'");
      }
      int node = Integer.parseInt(kv[0].trim());
      long nanos = Math.round(Double.parseDouble(kv[1].trim()) * 1000);
      while (result.size() <= node) {
        result.add(0L);
      }
      result.set(node, nanos);
    }
    return result;
  }
}
