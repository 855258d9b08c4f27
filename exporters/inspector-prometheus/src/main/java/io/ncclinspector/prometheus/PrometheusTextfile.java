package io.ncclinspector.prometheus;

import io.ncclinspector.export.NetworkPeers;
import io.ncclinspector.prometheus.internal.PrometheusTextfileSink;
import io.ncclinspector.spi.ExporterContext;
import io.ncclinspector.spi.ExporterFactory;
import io.ncclinspector.spi.InspectorExporter;
import java.time.Duration;
import java.util.Objects;

/**
 * The Prometheus textfile output: a drop-in for the reference Inspector's
 * {@code NCCL_INSPECTOR_PROM_DUMP=1} mode. Files go to the dump directory, one per GPU
 * ({@code nccl_inspector_metrics_<gpu uuid>.prom}), for node_exporter's textfile collector.
 *
 * <pre>{@code
 * InspectorConfig.builder().exporter(PrometheusTextfile.every(Duration.ofSeconds(30))).build()
 * }</pre>
 *
 * <p>With this module on the class path, {@code NCCL_INSPECTOR_PROM_DUMP=1} turns it on without
 * code (and JSON output off, as in the reference), its interval then being
 * {@code NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS} raised to 30 s.
 *
 * @param interval how often the files are rewritten; at least 30 s, the reference's floor
 *     (Prometheus scrapes rarely faster, and the gauges are means over the interval)
 * @param removeFilesOnClose delete the files when the inspector closes, as the reference does, so
 *     that a finished job leaves no stale series behind (default true)
 * @param slurmJobId the {@code slurm_job_id} label ({@code SLURM_JOB_ID}, else {@code unknown})
 * @param maxPeersPerCommunicator the peers of a communicator rank with a {@code peer} label of
 *     their own in the network series (default {@value NetworkPeers#DEFAULT_MAX_PEERS}): those
 *     waited for longest; the others are folded into {@code peer="other"}
 */
public record PrometheusTextfile(Duration interval, boolean removeFilesOnClose, String slurmJobId,
    int maxPeersPerCommunicator) implements ExporterFactory {
  /** The exporter's name in a configuration. */
  public static final String NAME = "prometheus";
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
    if (maxPeersPerCommunicator < 1) {
      throw new IllegalArgumentException("maxPeersPerCommunicator must be positive: " + maxPeersPerCommunicator);
    }
  }

  /** With {@value NetworkPeers#DEFAULT_MAX_PEERS} peer labels per communicator rank. */
  public PrometheusTextfile(Duration interval, boolean removeFilesOnClose, String slurmJobId) {
    this(interval, removeFilesOnClose, slurmJobId, NetworkPeers.DEFAULT_MAX_PEERS);
  }

  /**
   * The exporter with its defaults, written every {@link #MIN_INTERVAL}, for
   * {@code InspectorConfig.builder().exporter(...)}: each exporter module's {@code exporter(...)}
   * is its entry point ({@code JfrEvents.exporter()}, {@code OpenTelemetryMetrics.exporter(otel)}).
   */
  public static PrometheusTextfile exporter() {
    return every(MIN_INTERVAL);
  }

  /** Written every {@code interval} (at least 30 s). */
  public static PrometheusTextfile every(Duration interval) {
    return new PrometheusTextfile(interval, true, "unknown");
  }

  public PrometheusTextfile withRemoveFilesOnClose(boolean remove) {
    return new PrometheusTextfile(interval, remove, slurmJobId, maxPeersPerCommunicator);
  }

  public PrometheusTextfile withSlurmJobId(String id) {
    return new PrometheusTextfile(interval, removeFilesOnClose, id, maxPeersPerCommunicator);
  }

  /** At most {@code max} peers of a communicator rank keep a {@code peer} label of their own. */
  public PrometheusTextfile withMaxPeersPerCommunicator(int max) {
    return new PrometheusTextfile(interval, removeFilesOnClose, slurmJobId, max);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public InspectorExporter start(ExporterContext context) {
    return PrometheusTextfileSink.start(this, context);
  }
}
