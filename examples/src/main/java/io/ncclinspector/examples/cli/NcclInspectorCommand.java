package io.ncclinspector.examples.cli;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.PrometheusTextfile;
import io.ncclinspector.replay.ReplayResult;
import io.ncclinspector.replay.TraceReplayer;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code bin/nccl-inspector}: the command line of the project.
 *
 * <pre>
 * nccl-inspector replay --trace FILE [--trace FILE ...] --dump-dir DIR [--verbose]
 *                       [--hostname NAME] [--min-size BYTES] [--all-timing] [--record DIR]
 * </pre>
 */
public final class NcclInspectorCommand {
  private NcclInspectorCommand() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
      usage(out);
      return args.length == 0 ? 2 : 0;
    }
    if (!args[0].equals("replay")) {
      err.println("unknown command '" + args[0] + "'");
      usage(err);
      return 2;
    }
    try {
      return replay(ReplayOptions.parse(args), out, err);
    } catch (IllegalArgumentException e) {
      err.println("nccl-inspector replay: " + e.getMessage());
      usage(err);
      return 2;
    } catch (Exception e) {
      err.println("nccl-inspector replay failed: " + e);
      return 1;
    }
  }

  private static int replay(ReplayOptions o, PrintStream out, PrintStream err) throws Exception {
    InspectorConfig.Builder config = InspectorConfig.builder()
        .fromEnvironment()
        .dumpDirectory(o.dumpDir())
        .verbose(o.verbose());
    if (o.minSize() >= 0) {
      config.minMessageBytes(o.minSize());
    }
    if (o.allTiming()) {
      config.requireKernelTiming(false);
    }
    if (o.recordDir() != null) {
      config.traceDirectory(o.recordDir());
    }
    if (o.prometheus()) {
      config.prometheus(PrometheusTextfile.every(PrometheusTextfile.MIN_INTERVAL));
    }
    if (config.build().prometheus().enabled()) {
      /* A replay's textfiles are its result: keep them (a live job removes them at close). */
      config.prometheus(config.build().prometheus().withRemoveFilesOnClose(false));
    }
    int failures = 0;
    for (Path trace : o.traces()) {
      if (!Files.isReadable(trace)) {
        err.println("cannot read trace " + trace);
        failures++;
        continue;
      }
      ReplayResult r = TraceReplayer.replay(trace, config.build(), o.hostname());
      out.printf("%s: %d events, %d calls into the plugin, %d records -> %s%s%n", trace,
          r.traceEvents(), r.callsMade(), r.recordsWritten(),
          r.outputFile().map(Path::toString).orElse("(no JSON output)"),
          r.complete() ? "" : " (trace ends without finalize: a crashed run)");
      if (r.recordsQuarantined() > 0) {
        out.printf("    quarantined %d record(s) with untrusted GPU timestamps %s -> %s%n", r.recordsQuarantined(),
            r.counters().quarantined().entrySet().stream().filter(e -> e.getValue() > 0).map(Map.Entry::toString).toList(),
            r.outputFile().map(f -> f.resolveSibling(f.getFileName().toString().replace(".log", ".quarantine.log")))
                .map(Path::toString).orElse(""));
      }
      for (Map.Entry<String, Long> drop : r.counters().drops().entrySet()) {
        if (drop.getValue() > 0) {
          out.printf("    dropped %-22s %d%n", drop.getKey(), drop.getValue());
        }
      }
      r.recording().ifPresent(rec -> out.printf("    recorded %d callbacks to %s%s%n", rec.eventsWritten(),
          rec.file(), rec.eventsDroppedAtLimit() > 0 ? " (" + rec.eventsDroppedAtLimit() + " past the size bound)" : ""));
      if (!r.problems().isEmpty()) {
        out.printf("    %d trace line(s) skipped (see the log)%n", r.problems().size());
      }
    }
    if (config.build().prometheus().enabled()) {
      try (var files = Files.list(o.dumpDir())) {
        files.filter(f -> f.getFileName().toString().endsWith(".prom")).sorted()
            .forEach(f -> out.printf("Prometheus textfile: %s%n", f));
      }
    }
    return failures == 0 ? 0 : 1;
  }

  private static void usage(PrintStream s) {
    s.println("usage: nccl-inspector report LOG_DIR... --out DIR   (offline analysis; nccl-inspector report --help)");
    s.println("       nccl-inspector replay --trace FILE [--trace FILE ...] --dump-dir DIR [--verbose]");
    s.println("                             [--hostname NAME] [--min-size BYTES] [--all-timing] [--record DIR]");
    s.println("                             [--prometheus]");
    s.println("  Replays recorded NCCL profiler traces through the inspector, as NCCL would call it,");
    s.println("  and writes the JSON Lines output a real run would leave (one file per traced process).");
    s.println("  --min-size    smallest message tracked (default: NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES or 8192)");
    s.println("  --all-timing  keep CPU-timed records too (NCCL_INSPECTOR_REQUIRE_KERNEL_TIMING=0)");
    s.println("  --record DIR  record the callbacks the plugin receives, as a replayable trace (NCCL_INSPECTOR_TRACE_DIR)");
    s.println("  --prometheus  also write the Prometheus textfiles (NCCL_INSPECTOR_PROM_DUMP=1 writes only them)");
  }

  /** Parsed arguments of {@code replay}. */
  record ReplayOptions(List<Path> traces, Path dumpDir, boolean verbose, String hostname, long minSize,
      boolean allTiming, Path recordDir, boolean prometheus) {
    static ReplayOptions parse(String[] args) {
      List<Path> traces = new ArrayList<>();
      Path dumpDir = null;
      boolean verbose = false;
      boolean allTiming = false;
      String hostname = "replay";
      long minSize = -1;
      Path recordDir = null;
      boolean prometheus = false;
      for (int i = 1; i < args.length; i++) {
        switch (args[i]) {
          case "--record" -> recordDir = Path.of(value(args, ++i, "--record"));
          case "--trace" -> traces.add(Path.of(value(args, ++i, "--trace")));
          case "--dump-dir" -> dumpDir = Path.of(value(args, ++i, "--dump-dir"));
          case "--verbose" -> verbose = true;
          case "--prometheus" -> prometheus = true;
          case "--all-timing" -> allTiming = true;
          case "--hostname" -> hostname = value(args, ++i, "--hostname");
          case "--min-size" -> {
            String v = value(args, ++i, "--min-size");
            try {
              minSize = Long.parseLong(v);
            } catch (NumberFormatException e) {
              throw new IllegalArgumentException("--min-size needs a number of bytes, got '" + v + "'");
            }
          }
          default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'");
        }
      }
      if (traces.isEmpty()) {
        throw new IllegalArgumentException("give at least one --trace FILE");
      }
      if (dumpDir == null) {
        throw new IllegalArgumentException("give --dump-dir DIR");
      }
      return new ReplayOptions(traces, dumpDir, verbose, hostname, minSize, allTiming, recordDir, prometheus);
    }

    private static String value(String[] args, int i, String option) {
      if (i >= args.length) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      return args[i];
    }
  }
}
