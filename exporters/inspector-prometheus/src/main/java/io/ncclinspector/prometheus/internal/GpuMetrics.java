package io.ncclinspector.prometheus.internal;

import io.ncclinspector.OperationRecord;
import io.ncclinspector.export.ClassKey;
import io.ncclinspector.export.OperationClasses;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Map;

/**
 * The series of one GPU's file. The reference's four gauges carry the interval's means and only
 * for series that saw operations since the last write; the histograms are cumulative and keep
 * every series seen. The number of series is bounded: past {@code maxSeries} new label
 * combinations are counted, not added. The network series ({@link NetworkSeries}) are bounded by
 * communicator ranks and peers.
 */
final class GpuMetrics {
  static final String COLL_BANDWIDTH = "nccl_bus_bandwidth_gbs";
  static final String COLL_EXEC = "nccl_collective_exec_time_microseconds";
  static final String P2P_BANDWIDTH = "nccl_p2p_bus_bandwidth_gbs";
  static final String P2P_EXEC = "nccl_p2p_exec_time_microseconds";
  static final String COLL_EXEC_HISTOGRAM = "nccl_inspector_collective_exec_time_seconds";
  static final String COLL_BANDWIDTH_HISTOGRAM = "nccl_inspector_collective_bus_bandwidth_gbs";
  static final String P2P_EXEC_HISTOGRAM = "nccl_inspector_p2p_exec_time_seconds";
  static final String P2P_BANDWIDTH_HISTOGRAM = "nccl_inspector_p2p_bus_bandwidth_gbs";

  private final String uuid;
  private final String gpuLabel;
  /* In the order series first appeared, as the file lists them. */
  private final OperationClasses<CommShape, SeriesAccumulator> series;
  private final NetworkSeries network;
  private boolean changed;

  GpuMetrics(String uuid, String gpuLabel, int maxSeries, int maxPeers) {
    this.uuid = uuid;
    this.gpuLabel = gpuLabel;
    this.series = OperationClasses.ordered(maxSeries);
    this.network = new NetworkSeries(maxPeers);
  }

  String uuid() {
    return uuid;
  }

  /** Operations since the last write. */
  boolean changed() {
    return changed;
  }

  /** Operations not counted because the series or communicator limit was reached. */
  long overflow() {
    return series.overflow() + network.overflow();
  }

  int seriesCount() {
    return series.size();
  }

  /**
   * Adds an operation to the series of its class and communicator; returns false (and counts) when
   * it would need a series past the limit.
   */
  boolean add(OperationRecord r, CommShape communicator) {
    SeriesAccumulator a = series.classOf(r, communicator, k -> new SeriesAccumulator());
    if (a == null) {
      return false;
    }
    a.add(r.timing().executionMicros(), r.timing().executionNanos(), r.transfer().busBandwidthGbs());
    changed = true;
    return true;
  }

  /**
   * Adds an operation's network breakdown to its communicator rank's network series; false when
   * it has none, or its communicator rank would be past the limit (counted).
   */
  boolean addNetwork(OperationRecord r) {
    if (!network.add(r)) {
      return false;
    }
    changed = true;
    return true;
  }

  /** The file's content, and the start of a new interval. */
  MetricSnapshots drainSnapshot(FileLabels file) {
    GaugeSnapshot.Builder collBw = gauge(COLL_BANDWIDTH,
        "Geometric mean bus bandwidth of the collectives completed in the last interval, GB/s");
    GaugeSnapshot.Builder collExec = gauge(COLL_EXEC,
        "Mean execution time of the collectives completed in the last interval, microseconds");
    GaugeSnapshot.Builder p2pBw = gauge(P2P_BANDWIDTH,
        "Geometric mean bus bandwidth of the Send/Recv operations completed in the last interval, GB/s");
    GaugeSnapshot.Builder p2pExec = gauge(P2P_EXEC,
        "Mean execution time of the Send/Recv operations completed in the last interval, microseconds");
    HistogramSnapshot.Builder collExecH = histogram(COLL_EXEC_HISTOGRAM,
        "Execution time of collectives since the process started profiling, seconds");
    HistogramSnapshot.Builder collBwH = histogram(COLL_BANDWIDTH_HISTOGRAM,
        "Bus bandwidth of collectives since the process started profiling, GB/s");
    HistogramSnapshot.Builder p2pExecH = histogram(P2P_EXEC_HISTOGRAM,
        "Execution time of Send/Recv operations since the process started profiling, seconds");
    HistogramSnapshot.Builder p2pBwH = histogram(P2P_BANDWIDTH_HISTOGRAM,
        "Bus bandwidth of Send/Recv operations since the process started profiling, GB/s");
    boolean anyColl = false;
    boolean anyP2p = false;
    for (Map.Entry<ClassKey<CommShape>, SeriesAccumulator> e : series.classes().entrySet()) {
      ClassKey<CommShape> k = e.getKey();
      SeriesAccumulator a = e.getValue();
      Labels labels = file.labels(gpuLabel, k);
      if (a.hasIntervalData()) {
        (k.collective() ? collBw : p2pBw).dataPoint(point(labels, a.geometricMeanBandwidth()));
        (k.collective() ? collExec : p2pExec).dataPoint(point(labels, a.meanExecMicros()));
        a.resetInterval();
      }
      (k.collective() ? collExecH : p2pExecH).dataPoint(HistogramDataPointSnapshot.builder()
          .labels(labels)
          .classicHistogramBuckets(ClassicHistogramBuckets.of(
              FixedBuckets.EXEC_TIME_SECONDS.boundsWithInfinity(), a.execBuckets.clone()))
          .sum(a.totalExecSeconds)
          .build());
      (k.collective() ? collBwH : p2pBwH).dataPoint(HistogramDataPointSnapshot.builder()
          .labels(labels)
          .classicHistogramBuckets(ClassicHistogramBuckets.of(
              FixedBuckets.BUS_BANDWIDTH_GBS.boundsWithInfinity(), a.bandwidthBuckets.clone()))
          .sum(a.totalBandwidth)
          .build());
      anyColl |= k.collective();
      anyP2p |= !k.collective();
    }
    changed = false;
    MetricSnapshots.Builder out = MetricSnapshots.builder();
    if (anyColl) {
      out.metricSnapshot(collBw.build()).metricSnapshot(collExec.build())
          .metricSnapshot(collExecH.build()).metricSnapshot(collBwH.build());
    }
    if (anyP2p) {
      out.metricSnapshot(p2pBw.build()).metricSnapshot(p2pExec.build())
          .metricSnapshot(p2pExecH.build()).metricSnapshot(p2pBwH.build());
    }
    network.addTo(out, file, gpuLabel);
    return out.build();
  }

  private static GaugeSnapshot.Builder gauge(String name, String help) {
    return GaugeSnapshot.builder().name(name).help(help);
  }

  private static HistogramSnapshot.Builder histogram(String name, String help) {
    return HistogramSnapshot.builder().name(name).help(help);
  }

  private static GaugeDataPointSnapshot point(Labels labels, double value) {
    return GaugeDataPointSnapshot.builder().labels(labels).value(value).build();
  }
}
