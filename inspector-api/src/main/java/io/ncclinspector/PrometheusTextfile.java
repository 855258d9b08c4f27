package io.ncclinspector;

import java.time.Duration;
import java.util.Objects;

/**
 * The Prometheus textfile output: a drop-in for the reference Inspector's
 * {@code NCCL_INSPECTOR_PROM_DUMP=1} mode. Files go to the dump directory, one per GPU
 * ({@code nccl_inspector_metrics_<gpu uuid>.prom}), for node_exporter's textfile collector.
 *
 * @param enabled whether the files are written
 * @param interval how often they are rewritten; at least 30 s, the reference's floor (Prometheus
 *     scrapes rarely faster, and the gauges are means over the interval)
 * @param removeFilesOnClose delete the files when the inspector closes, as the reference does, so
 *     that a finished job leaves no stale series behind (default true)
 * @param slurmJobId the {@code slurm_job_id} label ({@code SLURM_JOB_ID}, else {@code unknown})
 */
public record PrometheusTextfile(boolean enabled, Duration interval, boolean removeFilesOnClose, String slurmJobId) {
  /** The reference's floor on the interval. */
  public static final Duration MIN_INTERVAL = Duration.ofSeconds(30);

  public PrometheusTextfile {
    Objects.requireNonNull(interval, "interval");
    Objects.requireNonNull(slurmJobId, "slurmJobId");
    if (interval.compareTo(MIN_INTERVAL) < 0) {
      throw new IllegalArgumentException("the Prometheus textfile interval must be at least " + MIN_INTERVAL
          + " (the reference Inspector's floor), got " + interval);
    }
    if (slurmJobId.isBlank()) {
      throw new IllegalArgumentException("slurmJobId must not be blank");
    }
  }

  /** Not written. */
  public static PrometheusTextfile disabled() {
    return new PrometheusTextfile(false, MIN_INTERVAL, true, "unknown");
  }

  /** Written every {@code interval} (at least 30 s). */
  public static PrometheusTextfile every(Duration interval) {
    return new PrometheusTextfile(true, interval, true, "unknown");
  }

  public PrometheusTextfile withRemoveFilesOnClose(boolean remove) {
    return new PrometheusTextfile(enabled, interval, remove, slurmJobId);
  }

  public PrometheusTextfile withSlurmJobId(String id) {
    return new PrometheusTextfile(enabled, interval, removeFilesOnClose, id);
  }
}
