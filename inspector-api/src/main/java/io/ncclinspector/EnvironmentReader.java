package io.ncclinspector;

import io.ncclinspector.spi.EnvironmentView;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongConsumer;

/**
 * Reads the reference Inspector's environment variables ({@code NCCL_INSPECTOR_*}) into a
 * {@link InspectorConfig.Builder}. A variable that is set but malformed fails with an
 * {@link IllegalArgumentException} naming it, rather than being silently ignored; one that is in
 * range as a number but not as a setting fails at {@link InspectorConfig.Builder#build()}, also
 * naming it. Exporters read their own variables ({@code NCCL_INSPECTOR_JFR}, the Prometheus
 * textfiles' interval) through their {@link io.ncclinspector.spi.ExporterProvider}, which declares
 * them.
 */
final class EnvironmentReader {
  private final Map<String, String> map;
  private final EnvironmentView env;
  private final InspectorConfig.Builder b;

  EnvironmentReader(Map<String, String> env, InspectorConfig.Builder builder) {
    this.map = env;
    this.env = EnvironmentView.of(env);
    this.b = builder;
  }

  void apply() {
    read(Setting.ENABLE);
    dumpOutput();
    for (Setting s : Setting.values()) {
      if (s.reading == Setting.Reading.PLAIN && s != Setting.ENABLE) {
        read(s);
      }
    }
    slowCollectives();
    String sensitivity = map.get("NCCL_INSPECTOR_SLOW_SENSITIVITY");
    if (sensitivity != null && !sensitivity.isBlank()) {
      throw new IllegalArgumentException("NCCL_INSPECTOR_SLOW_SENSITIVITY is no longer read: slow collectives are"
          + " judged against their class's 99th percentile; use NCCL_INSPECTOR_SLOW_FACTOR (0: off)");
    }
    b.dumpDirectoryUnlessSet(defaultDumpDirectory(map));
  }

  /**
   * NCCL_INSPECTOR_PROM_DUMP and the dump interval: the reference's textfile mode replaces the JSON
   * output, and its interval is then the exporter's; otherwise a negative interval turns JSON off.
   */
  private void dumpOutput() {
    boolean prom = readSwitch(Setting.PROM_DUMP).orElse(false);
    if (prom) {
      b.jsonOutput(false);
      b.requireExporter("prometheus", Setting.PROM_DUMP.variable + "=1 asks for Prometheus textfiles, and no Prometheus exporter is"
          + " on the class path: add the io.ncclinspector:inspector-prometheus dependency");
      number(Setting.DUMP_INTERVAL, us -> { });
    } else {
      number(Setting.DUMP_INTERVAL, us -> {
        b.jsonOutput(us >= 0);
        if (us >= 0) {
          b.dumpInterval(Duration.ofNanos(Math.multiplyExact(us, 1000L)));
        }
      });
    }
  }

  /** A variable the table alone says how to read ({@link Setting.Reading#PLAIN}). */
  private void read(Setting s) {
    switch (s.kind) {
      case SWITCH -> readSwitch(s).ifPresent(v -> applying(s.variable, map.get(s.variable), () -> b.set(s, v)));
      case PATH, OPTIONAL_PATH -> env.string(s.variable).ifPresent(
          v -> applying(s.variable, v, () -> b.set(s, Path.of(v.trim()))));
      case INT -> number(s, v -> b.set(s, (int) v));
      case LONG -> number(s, v -> b.set(s, v));
      case DURATION_MS -> number(s, ms -> b.set(s, Duration.ofMillis(ms)));
      case SIZE_MB -> number(s, mb -> b.set(s, Math.multiplyExact(mb, 1L << 20)));
      default -> throw new IllegalStateException(s + " is not read from the table alone");
    }
  }

  /** The slow-collective variables: each changes one part of the detection, checked as it is applied. */
  private void slowCollectives() {
    env.string(Setting.SLOW_FACTOR.variable).map(String::trim).ifPresent(v -> {
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
    number(Setting.SLOW_MIN_EXCESS_US,
        us -> b.slowCollectives(b.slowCollectivesSoFar().withMinExcess(Duration.ofNanos(Math.multiplyExact(us, 1000L)))));
    number(Setting.SLOW_MAX_EVENTS, n -> {
      SlowCollectiveDetection s = b.slowCollectivesSoFar();
      b.slowCollectives(n == 0 ? s.withoutRateLimit() : s.withRateLimit((int) n, s.interval()));
    });
    number(Setting.SLOW_INTERVAL_MS, ms -> {
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

  /** A switch: 0 or 1 ({@link EnvironmentView#flag}); any other value fails, naming the variable. */
  private Optional<Boolean> readSwitch(Setting s) {
    Optional<Boolean> v = env.flag(s.variable);
    if (v.isPresent() && s.setting != null) {
      b.origin(s.setting, s.variable, map.get(s.variable).strip());
    }
    return v;
  }

  /**
   * Parses a variable as an integer ({@link EnvironmentView#integer}, of 32 bits for
   * {@link Setting.Kind#INT}) and hands it on; the builder remembers where the setting came from,
   * where the table names one (the slow-collective variables are checked as they are applied).
   */
  private void number(Setting s, LongConsumer sink) {
    OptionalLong parsed = s.kind == Setting.Kind.INT ? env.integer(s.variable, Integer.MIN_VALUE, Integer.MAX_VALUE)
        : env.integer(s.variable);
    if (parsed.isEmpty()) {
      return;
    }
    String v = map.get(s.variable);
    if (s.setting != null) {
      b.origin(s.setting, s.variable, v.trim());
    }
    applying(s.variable, v, () -> sink.accept(parsed.getAsLong()));
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
