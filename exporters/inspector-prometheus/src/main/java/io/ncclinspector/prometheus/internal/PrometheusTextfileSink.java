package io.ncclinspector.prometheus.internal;

import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.EventCounters;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.export.NetworkPeers;
import io.ncclinspector.export.OperationClasses;
import io.ncclinspector.prometheus.PrometheusTextfile;
import io.ncclinspector.prometheus.TextfileExporter;
import io.ncclinspector.spi.ExporterContext;
import io.ncclinspector.spi.InspectorExporter;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Prometheus textfile output, a drop-in for the reference Inspector's
 * {@code NCCL_INSPECTOR_PROM_DUMP=1} mode: one file per GPU,
 * {@code <dir>/nccl_inspector_metrics_<gpu uuid>.prom}, with the reference's metric names, labels and
 * message-size buckets, rewritten at most once per interval (30 s at least) and only when the GPU
 * saw operations, so that NVIDIA's Grafana dashboard works unchanged. Beyond the reference it
 * writes cumulative histograms of execution time and bus bandwidth and network counters per
 * communicator rank and peer ({@link NetworkSeries}) into the same files, replaces files
 * atomically, and writes the process's drop counters to
 * {@code nccl_inspector_process_<host>-pid<pid>.prom}.
 *
 * <p>An exporter: runs on its own thread, behind the inspector's queue. Records without a trusted
 * time (quarantined, or untimed) are left out of the time and bandwidth series; their network
 * breakdown (host clock)
 * counts. A write failure is logged once per distinct reason and counted; the next
 * interval tries again. At close the files are removed (as the reference does, so that a finished
 * job leaves no stale series), unless configured to stay.
 */
public final class PrometheusTextfileSink implements InspectorExporter, TextfileExporter {
  private static final Logger log = LoggerFactory.getLogger(PrometheusTextfileSink.class);
  /** Label combinations per GPU file before new ones are counted instead of added. */
  public static final int MAX_SERIES_PER_GPU = 4096;

  private final Path directory;
  private final long intervalNanos;
  private final boolean removeOnClose;
  private final FileLabels fileLabels;
  private final int maxPeers;
  private final String hostname;
  private final long pid;
  private final Supplier<EventCounters> counters;
  private final LongSupplier recordsReceived;
  private final TextfileWriter writer = new TextfileWriter();
  private final Map<String, GpuMetrics> gpus = new HashMap<>();
  private final Set<Path> written = new ConcurrentSkipListSet<>();
  private final AtomicLong filesWritten = new AtomicLong();
  private final AtomicLong writeFailures = new AtomicLong();
  private final AtomicLong seriesOverflow = new AtomicLong();
  private final LongSupplier clock;
  private long lastWrite;
  private String lastError;

  /**
   * @param counters the inspector's counters, read at every write for the process file
   * @param recordsReceived records the inspector received, read likewise
   */
  public PrometheusTextfileSink(Path directory, Duration interval, boolean removeOnClose, String hostname,
      long pid, String slurmJobId, Supplier<EventCounters> counters, LongSupplier recordsReceived) {
    this(directory, interval, removeOnClose, hostname, pid, slurmJobId, counters, recordsReceived,
        NetworkPeers.DEFAULT_MAX_PEERS);
  }

  /**
   * As above, with at most {@code maxPeers} peers of a communicator rank labelled in the network
   * series.
   */
  public PrometheusTextfileSink(Path directory, Duration interval, boolean removeOnClose, String hostname,
      long pid, String slurmJobId, Supplier<EventCounters> counters, LongSupplier recordsReceived, int maxPeers) {
    this(directory, interval, removeOnClose, hostname, pid, slurmJobId, counters, recordsReceived, maxPeers,
        System::nanoTime);
  }

  /** As above, with the monotonic nanosecond clock the interval is measured on (tests move their own). */
  PrometheusTextfileSink(Path directory, Duration interval, boolean removeOnClose, String hostname, long pid,
      String slurmJobId, Supplier<EventCounters> counters, LongSupplier recordsReceived, int maxPeers,
      LongSupplier clock) {
    if (maxPeers < 1) {
      throw new IllegalArgumentException("maxPeers must be positive: " + maxPeers);
    }
    this.maxPeers = maxPeers;
    this.clock = clock;
    this.lastWrite = clock.getAsLong();
    this.directory = directory.toAbsolutePath();
    this.intervalNanos = interval.toNanos();
    this.removeOnClose = removeOnClose;
    this.hostname = hostname;
    this.pid = pid;
    this.fileLabels = new FileLabels(FileLabels.FORMAT_VERSION, slurmJobId, hostname);
    this.counters = counters;
    this.recordsReceived = recordsReceived;
  }

  /** Starts the exporter a configuration asked for, in its dump directory. */
  public static PrometheusTextfileSink start(PrometheusTextfile p, ExporterContext context) {
    PrometheusTextfileSink sink = new PrometheusTextfileSink(context.config().dumpDirectory(), p.interval(),
        p.removeFilesOnClose(), context.config().processIdentity().hostname(),
        context.config().processIdentity().pid(), p.slurmJobId(), context::counters,
        () -> context.status().records().received(), p.maxPeersPerCommunicator());
    context.addDropCounter("prometheus_series_overflow", sink::seriesOverflow);
    return sink;
  }

  /** The file of a GPU. */
  @Override
  public Path gpuFile(String uuid) {
    return directory.resolve("nccl_inspector_metrics_" + uuid + ".prom");
  }

  /** The file of the process-wide counters. */
  @Override
  public Path processFile() {
    return directory.resolve("nccl_inspector_process_" + hostname + "-pid" + pid + ".prom");
  }

  /** The files written so far and not removed. */
  @Override
  public Set<Path> files() {
    return Set.copyOf(written);
  }

  /** File writes done (each GPU file and the process file count once per write). */
  public long filesWritten() {
    return filesWritten.get();
  }

  /** File writes that failed. */
  public long writeFailures() {
    return writeFailures.get();
  }

  /**
   * Operations not in the metrics because their GPU's file had reached the series limit, and
   * network breakdowns left out past the communicator limit.
   */
  @Override
  public long seriesOverflow() {
    return seriesOverflow.get();
  }

  @Override
  public void operationCompleted(OperationRecord r) {
    record(r);
  }

  /**
   * Records one completed operation into the series of its GPU, class and communicator: not when
   * its time is not one the inspector vouches for
   * ({@link OperationClasses#recordable}), counted as overflow when its GPU's
   * file would be past {@link #MAX_SERIES_PER_GPU} series. Its network breakdown, if it has one
   * ({@link NetworkPeers#contributes}), goes into the network series, quarantined or not (it
   * comes from the host clock); counted as overflow past the communicator limit.
   */
  public void record(OperationRecord r) {
    boolean timed = OperationClasses.recordable(r);
    boolean network = NetworkPeers.contributes(r);
    if (!timed && !network) {
      return; /* counted by the inspector's quarantine and call counters */
    }
    GpuMetrics gpu = gpuOf(r.communicator());
    if (timed && !gpu.add(r, CommShape.of(r.communicator()))) {
      seriesOverflow.incrementAndGet();
    }
    if (network && !gpu.addNetwork(r)) {
      seriesOverflow.incrementAndGet();
    }
  }

  private GpuMetrics gpuOf(CommunicatorInfo comm) {
    GpuMetrics gpu = gpus.get(comm.gpuUuid());
    if (gpu == null) {
      String label = comm.cudaDevice() >= 0 ? "GPU" + comm.cudaDevice() : CommunicatorInfo.UNKNOWN_GPU;
      gpu = new GpuMetrics(comm.gpuUuid(), label, MAX_SERIES_PER_GPU, maxPeers);
      gpus.put(comm.gpuUuid(), gpu);
    }
    return gpu;
  }

  /** Writes when the interval has passed since the last write. */
  @Override
  public void flush() {
    if (clock.getAsLong() - lastWrite >= intervalNanos) {
      writeAll();
    }
  }

  /** An explicit request ({@code NcclInspector.flush()}): writes now. */
  @Override
  public void flushNow() {
    writeAll();
  }

  @Override
  public void close() {
    if (!removeOnClose) {
      writeAll();
      return;
    }
    for (Path p : written) {
      try {
        written.remove(p);
        Files.deleteIfExists(p);
      } catch (IOException e) {
        log.warn("NCCL Inspector: could not remove {}: {}", p, e.toString());
      }
    }
  }

  private void writeAll() {
    lastWrite = clock.getAsLong();
    List<GpuMetrics> changed = new ArrayList<>();
    for (GpuMetrics g : gpus.values()) {
      if (g.changed()) {
        changed.add(g);
      }
    }
    for (GpuMetrics g : changed) {
      write(gpuFile(g.uuid()), g.drainSnapshot(fileLabels));
    }
    write(processFile(), processMetrics());
  }

  private MetricSnapshots processMetrics() {
    Labels labels = fileLabels.process(pid);
    EventCounters c = counters.get();
    return MetricSnapshots.of(
        counter("nccl_inspector_records", "Operation records the inspector received from NCCL",
            List.of(point(labels, recordsReceived.getAsLong()))),
        counter("nccl_inspector_dropped", "Events or records dropped, by reason", byKind(labels, "reason", c.drops())),
        counter("nccl_inspector_quarantined", "Records whose GPU timing was not trusted, by reason",
            byKind(labels, "reason", byName(c.quarantined()))));
  }

  private static Map<String, Long> byName(Map<Quarantine, Long> quarantined) {
    Map<String, Long> out = new java.util.TreeMap<>();
    quarantined.forEach((reason, n) -> out.put(reason.jsonName(), n));
    return out;
  }

  private static List<CounterDataPointSnapshot> byKind(Labels labels, String name, Map<String, Long> values) {
    List<CounterDataPointSnapshot> points = new ArrayList<>(values.size());
    values.forEach((k, v) -> points.add(point(labels.add(name, k), v)));
    return points;
  }

  private static CounterDataPointSnapshot point(Labels labels, double value) {
    return CounterDataPointSnapshot.builder().labels(labels).value(value).build();
  }

  private static CounterSnapshot counter(String name, String help, List<CounterDataPointSnapshot> points) {
    CounterSnapshot.Builder b = CounterSnapshot.builder().name(name).help(help);
    points.forEach(b::dataPoint);
    return b.build();
  }

  private void write(Path file, MetricSnapshots metrics) {
    try {
      writer.write(file, metrics);
      written.add(file);
      filesWritten.incrementAndGet();
      lastError = null;
    } catch (IOException | RuntimeException e) {
      writeFailures.incrementAndGet();
      String reason = e.getClass().getSimpleName() + (e.getMessage() != null ? " " + e.getMessage() : "");
      if (!reason.equals(lastError)) {
        log.error("NCCL Inspector: cannot write Prometheus textfile {}: {} (profiling continues; "
            + "the next interval tries again)", file, reason);
        lastError = reason;
      }
    }
  }
}
