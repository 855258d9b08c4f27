package io.ncclinspector.cli;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.prometheus.PrometheusTextfile;
import io.ncclinspector.replay.ReplayResult;
import io.ncclinspector.replay.TraceReader;
import io.ncclinspector.replay.TraceReplayer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code nccl-inspector replay}: plays recorded traces through the inspector as NCCL would call
 * it, and says for each what was written, dropped, quarantined, skipped or lost. The exit status
 * is 1 when a trace could not be read or replayed, was damaged (events it holds could not be read),
 * had no usable event, or when output was lost (records or recorded callbacks that never reached
 * their files).
 */
@Command(name = "replay", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
    usageHelpWidth = 100,
    description = {"Replays recorded NCCL profiler traces through the inspector, as NCCL would call it, and",
        "writes the JSON Lines output a real run would leave (one file per traced process)."},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {"0:every trace replayed and everything written",
        "1:a trace could not be read, was damaged or could not be replayed, or output was lost (see the"
            + " messages)",
        "2:invalid command line"})
final class ReplayCommand implements Callable<Integer> {
  private static final Pattern HOSTNAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  @Spec CommandSpec spec;

  @Option(names = "--trace", required = true, paramLabel = "FILE",
      description = "A recorded trace (trace-pid<pid>.jsonl[.gz]); repeat for several processes.")
  List<Path> traces;

  @Option(names = "--dump-dir", required = true, paramLabel = "DIR", description = "Where the output goes.")
  Path dumpDir;

  @Option(names = "--verbose", description = "Add the per-channel event trace to each record.")
  boolean verbose;

  private String hostname = "replay";

  @Option(names = "--hostname", paramLabel = "NAME", defaultValue = "replay",
      description = "Host name in the output and its file name. Default: ${DEFAULT-VALUE}.")
  void hostname(String name) {
    if (!HOSTNAME.matcher(name).matches()) {
      throw new ParameterException(spec.commandLine(), "--hostname must be a host name (letters, digits, '.', '-',"
          + " '_'; it names the output file), got '" + name + "'");
    }
    hostname = name;
  }

  private Long minSize;

  @Option(names = "--min-size", paramLabel = "BYTES",
      description = "Smallest message tracked. Default: NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES or 8192.")
  void minSize(long bytes) {
    if (bytes < 0) {
      throw new ParameterException(spec.commandLine(), "--min-size must be 0 or more bytes, got " + bytes);
    }
    minSize = bytes;
  }

  @Option(names = "--all-timing", description = "Keep CPU-timed records too (NCCL_INSPECTOR_REQUIRE_KERNEL_TIMING=0).")
  boolean allTiming;

  @Option(names = "--record", paramLabel = "DIR",
      description = "Record the callbacks the plugin receives as a replayable trace (NCCL_INSPECTOR_TRACE_DIR).")
  Path recordDir;

  @Option(names = "--prometheus", description = "Also write the Prometheus textfiles (NCCL_INSPECTOR_PROM_DUMP=1 writes only them).")
  boolean prometheus;

  private final PrintStream out;
  private final PrintStream err;

  ReplayCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws IOException {
    InspectorConfig.Builder config = InspectorConfig.builder()
        .fromEnvironment()
        .dumpDirectory(dumpDir)
        .verbose(verbose);
    if (minSize != null) {
      config.minMessageBytes(minSize);
    }
    if (allTiming) {
      config.requireKernelTiming(false);
    }
    if (recordDir != null) {
      config.traceDirectory(recordDir);
    }
    if (prometheus) {
      config.exporter(PrometheusTextfile.every(PrometheusTextfile.MIN_INTERVAL));
    }
    InspectorConfig built = config.build();
    boolean textfiles = built.exporter(PrometheusTextfile.NAME).isPresent();
    if (textfiles) {
      /* A replay's textfiles are its result: keep them (a live job removes them at close). */
      PrometheusTextfile p = (PrometheusTextfile) built.exporter(PrometheusTextfile.NAME).orElseThrow();
      built = built.toBuilder().exporter(p.withRemoveFilesOnClose(false)).build();
    }
    int failures = 0;
    for (Path trace : traces) {
      ReplayResult r;
      try {
        r = TraceReplayer.replay(trace, built, hostname);
      } catch (IOException | RuntimeException e) {
        err.println("nccl-inspector replay: " + e.getMessage());
        failures++;
        continue;
      }
      if (!report(r)) {
        failures++;
      }
    }
    if (textfiles && Files.isDirectory(dumpDir)) {
      try (var files = Files.list(dumpDir)) {
        files.filter(f -> f.getFileName().toString().endsWith(".prom")).sorted()
            .forEach(f -> out.printf("Prometheus textfile: %s%n", f));
      }
    }
    return failures == 0 ? 0 : 1;
  }

  /** Prints what one replay did; returns false if it failed (nothing usable, output lost). */
  private boolean report(ReplayResult r) {
    boolean ok = true;
    String where = r.outputFile().map(Path::toString)
        .orElse(r.recordsWritten() == 0 && !r.outputLost() ? "(no record to write: no file)" : "(no file)");
    out.printf("%s: %d events, %d calls into the plugin, %d records -> %s%s%n", r.trace(), r.traceEvents(),
        r.callsMade(), r.recordsWritten(), where,
        r.complete() ? "" : r.damaged() ? " (trace damaged: replayed up to the damage)"
            : " (trace ends without finalize: a crashed run)");
    r.cutShort().ifPresent(c -> out.printf("    %s%n", c));
    if (r.damaged()) {
      err.printf("nccl-inspector replay: %s: the trace is damaged, the events after the damage were not replayed: %s%n",
          r.trace(), r.cutShort().orElse("?"));
      ok = false;
    }
    if (r.traceEvents() == 0) {
      err.printf("nccl-inspector replay: %s: no usable event in the trace%n", r.trace());
      ok = false;
    }
    if (r.recordsQuarantined() > 0) {
      out.printf("    quarantined %d record(s) with untrusted GPU timestamps %s%n", r.recordsQuarantined(),
          r.counters().quarantined().entrySet().stream().filter(e -> e.getValue() > 0)
              .map(e -> e.getKey().jsonName() + "=" + e.getValue()).toList());
    }
    for (Map.Entry<String, Long> drop : r.counters().drops().entrySet()) {
      if (drop.getValue() > 0) {
        out.printf("    dropped %-22s %d%n", drop.getKey(), drop.getValue());
      }
    }
    r.recording().ifPresent(rec -> {
      out.printf("    recorded %d callbacks to %s%s%n", rec.eventsWritten(), rec.file(),
          rec.eventsDroppedAtLimit() > 0 ? " (" + rec.eventsDroppedAtLimit() + " past the size bound)" : "");
      if (rec.eventsNotWritten() > 0) {
        err.printf("nccl-inspector replay: %d recorded callback(s) lost, the recording could not be written: %s%n",
            rec.eventsNotWritten(), rec.error().orElse("?"));
      }
    });
    if (r.status().records().notWritten() > 0) {
      err.printf("nccl-inspector replay: %d record(s) NOT written: %s%n", r.status().records().notWritten(),
          r.status().output().flatMap(o -> o.error()).orElse("?"));
    }
    if (r.outputLost()) {
      ok = false;
    }
    if (r.linesSkipped() > 0) {
      out.printf("    %d trace line(s) skipped (%s listed above)%n", r.linesSkipped(),
          r.linesSkipped() <= TraceReader.MAX_PROBLEMS_LISTED ? "each" : "the first " + TraceReader.MAX_PROBLEMS_LISTED);
    }
    return ok;
  }
}
