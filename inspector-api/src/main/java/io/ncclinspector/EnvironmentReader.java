package io.ncclinspector;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Reads the reference Inspector's environment variables ({@code NCCL_INSPECTOR_*}) into a
 * {@link InspectorConfig.Builder}. A variable that is set but malformed fails with an
 * {@link IllegalArgumentException} naming it, rather than being silently ignored; one that is in
 * range as a number but not as a setting fails at {@link InspectorConfig.Builder#build()}, also
 * naming it. Exporters read their own variables ({@code NCCL_INSPECTOR_PROM_DUMP}'s interval,
 * {@code NCCL_INSPECTOR_JFR}) through their {@link io.ncclinspector.spi.ExporterProvider}.
 */
final class EnvironmentReader {
  /** The variable of the Prometheus textfile mode, which turns JSON output off as in the reference. */
  static final String PROM_DUMP = "NCCL_INSPECTOR_PROM_DUMP";

  private final Map<String, String> env;
  private final InspectorConfig.Builder b;

  EnvironmentReader(Map<String, String> env, InspectorConfig.Builder builder) {
    this.env = env;
    this.b = builder;
  }

  void apply() {
    bool("NCCL_INSPECTOR_ENABLE", "enabled", b::enabled);
    boolean[] prom = {false};
    bool(PROM_DUMP, "prometheus", v -> prom[0] = v);
    if (prom[0]) {
      /* The reference's textfile mode replaces the JSON output; its interval is the exporter's. */
      b.jsonOutput(false);
      b.requireExporter("prometheus", PROM_DUMP + "=1 asks for Prometheus textfiles, and no Prometheus exporter is"
          + " on the class path: add the io.ncclinspector:inspector-prometheus dependency");
      number("NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", "dumpInterval", Long::parseLong, us -> { });
    } else {
      number("NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", "dumpInterval", Long::parseLong, us -> {
        b.jsonOutput(us >= 0);
        if (us >= 0) {
          b.dumpInterval(Duration.ofNanos(Math.multiplyExact(us, 1000L)));
        }
      });
    }
    bool("NCCL_INSPECTOR_JFR", "jfr", v -> { }); /* read by the JFR exporter; checked here too */
    string("NCCL_INSPECTOR_DUMP_DIR", dir -> b.dumpDirectory(Path.of(dir)));
    bool("NCCL_INSPECTOR_DUMP_VERBOSE", "verbose", b::verbose);
    bool("NCCL_INSPECTOR_ENABLE_P2P", "trackP2p", b::trackP2p);
    number("NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES", "minMessageBytes", Long::parseLong, b::minMessageBytes);
    bool("NCCL_INSPECTOR_REQUIRE_KERNEL_TIMING", "requireKernelTiming", b::requireKernelTiming);
    bool("NCCL_INSPECTOR_OVERRIDE_PLUGIN", "overridePlugin", b::overridePlugin);
    bool("NCCL_INSPECTOR_NCCL_WORKAROUNDS", "ncclWorkarounds", b::ncclWorkarounds);
    number("NCCL_INSPECTOR_INFLIGHT_OPS", "inflightOperations", Integer::parseInt, b::inflightOperations);
    number("NCCL_INSPECTOR_MAX_COMMS", "maxCommunicators", Integer::parseInt, b::maxCommunicators);
    number("NCCL_INSPECTOR_RING_CELLS", "ringCells", Integer::parseInt, b::ringCells);
    number("NCCL_INSPECTOR_INFLIGHT_EXPIRY_MS", "inflightExpiry", Long::parseLong,
        ms -> b.inflightExpiry(Duration.ofMillis(ms)));
    string("NCCL_INSPECTOR_TRACE_DIR", dir -> b.traceDirectory(Path.of(dir)));
    number("NCCL_INSPECTOR_TRACE_MAX_BYTES", "traceMaxBytes", Long::parseLong, b::traceMaxBytes);
    number("NCCL_INSPECTOR_TRACE_BUFFER_MB", "traceBufferBytes", Long::parseLong,
        mb -> b.traceBufferBytes(Math.multiplyExact(mb, 1L << 20)));
    number("NCCL_INSPECTOR_HANG_TIMEOUT_MS", "hangTimeout", Long::parseLong,
        ms -> b.hangTimeout(Duration.ofMillis(ms)));
    slowCollectives();
    String sensitivity = env.get("NCCL_INSPECTOR_SLOW_SENSITIVITY");
    if (sensitivity != null && !sensitivity.isBlank()) {
      throw new IllegalArgumentException("NCCL_INSPECTOR_SLOW_SENSITIVITY is no longer read: slow collectives are"
          + " judged against their class's 99th percentile; use NCCL_INSPECTOR_SLOW_FACTOR (0: off)");
    }
    b.dumpDirectoryUnlessSet(defaultDumpDirectory(env));
  }

  /** The slow-collective variables: each changes one part of the detection, checked as it is applied. */
  private void slowCollectives() {
    string("NCCL_INSPECTOR_SLOW_FACTOR", v -> {
      double factor;
      try {
        factor = Double.parseDouble(v);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("NCCL_INSPECTOR_SLOW_FACTOR must be a number, got '" + v + "'");
      }
      SlowCollectiveDetection s = b.slowCollectivesSoFar();
      applying("NCCL_INSPECTOR_SLOW_FACTOR", v,
          () -> b.slowCollectives(factor == 0 ? s.withEnabled(false) : s.withFactor(factor)));
    });
    number("NCCL_INSPECTOR_SLOW_MIN_EXCESS_US", null, Long::parseLong,
        us -> b.slowCollectives(b.slowCollectivesSoFar().withMinExcess(Duration.ofNanos(Math.multiplyExact(us, 1000L)))));
    number("NCCL_INSPECTOR_SLOW_MAX_EVENTS", null, Integer::parseInt, n -> {
      SlowCollectiveDetection s = b.slowCollectivesSoFar();
      b.slowCollectives(n == 0 ? s.withoutRateLimit() : s.withRateLimit(n, s.interval()));
    });
    number("NCCL_INSPECTOR_SLOW_INTERVAL_MS", null, Long::parseLong, ms -> {
      SlowCollectiveDetection s = b.slowCollectivesSoFar();
      b.slowCollectives(s.withRateLimit(s.maxEventsPerInterval(), Duration.ofMillis(ms)));
    });
  }

  /** The reference's default: {@code nccl-inspector-<SLURM_JOBID>} under the working directory. */
  static Path defaultDumpDirectory(Map<String, String> env) {
    String job = env.get("SLURM_JOBID");
    if (job != null && !job.isBlank()) {
      try {
        return Path.of("nccl-inspector-" + Long.parseLong(job.trim()));
      } catch (NumberFormatException e) {
        return Path.of("nccl-inspector-unknown-jobid");
      }
    }
    return Path.of("nccl-inspector-unknown-jobid");
  }

  private void string(String name, Consumer<String> sink) {
    String v = env.get(name);
    if (v != null && !v.isBlank()) {
      applying(name, v, () -> sink.accept(v.trim()));
    }
  }

  private void bool(String name, String setting, Consumer<Boolean> sink) {
    number(name, setting, Long::parseLong, v -> sink.accept(v != 0));
  }

  /**
   * Parses a variable as an integer and hands it to the builder, which remembers where the setting
   * came from ({@code setting}, null for one that is checked as it is applied).
   */
  private <T> void number(String name, String setting, Function<String, T> parse, Consumer<T> sink) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      return;
    }
    T parsed;
    try {
      parsed = parse.apply(v.trim());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(name + " must be an integer, got '" + v + "'", e);
    }
    if (setting != null) {
      b.origin(setting, name, v.trim());
    }
    applying(name, v, () -> sink.accept(parsed));
  }

  /** Runs a step of applying a variable, naming the variable in what it throws. */
  private static void applying(String name, String value, Runnable step) {
    try {
      step.run();
    } catch (IllegalArgumentException e) {
      if (e.getMessage() != null && e.getMessage().startsWith(name)) {
        throw e;
      }
      throw new IllegalArgumentException(name + "=" + value.trim() + ": " + e.getMessage(), e);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(name + "=" + value.trim() + ": out of range", e);
    }
  }
}
