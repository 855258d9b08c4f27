package io.ncclinspector.prometheus.internal;

import io.ncclinspector.prometheus.PrometheusTextfile;
import io.ncclinspector.spi.EnvironmentView;
import io.ncclinspector.spi.ExporterFactory;
import io.ncclinspector.spi.ExporterProvider;
import io.ncclinspector.spi.InspectorVariables;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * {@code NCCL_INSPECTOR_PROM_DUMP=1}: the reference's textfile mode, its interval
 * {@code NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS} raised to 30 s (a negative one, the
 * reference's "no dump thread", also means 30 s here: enabling is an explicit request for output),
 * {@code SLURM_JOB_ID} in the {@code slurm_job_id} label.
 */
public final class PrometheusTextfileProvider implements ExporterProvider {
  static final String PROM_DUMP = InspectorVariables.PROM_DUMP;
  static final String INTERVAL = InspectorVariables.DUMP_INTERVAL;

  @Override
  public String name() {
    return PrometheusTextfile.NAME;
  }

  @Override
  public Optional<ExporterFactory> fromEnvironment(Map<String, String> env) {
    EnvironmentView view = EnvironmentView.of(env);
    if (!view.flag(PROM_DUMP).orElse(false)) {
      return Optional.empty();
    }
    long us = view.integer(INTERVAL).orElse(0);
    Duration d;
    try {
      d = Duration.ofNanos(Math.multiplyExact(Math.max(us, 0), 1000L));
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(INTERVAL + "=" + us + ": out of range", e);
    }
    PrometheusTextfile p = PrometheusTextfile.every(
        d.compareTo(PrometheusTextfile.MIN_INTERVAL) < 0 ? PrometheusTextfile.MIN_INTERVAL : d);
    String job = env.get("SLURM_JOB_ID");
    if (job != null && !job.isBlank()) {
      p = p.withSlurmJobId(job.trim());
    }
    return Optional.of(p);
  }
}
