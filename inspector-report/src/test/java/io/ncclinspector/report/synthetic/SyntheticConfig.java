package io.ncclinspector.report.synthetic;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What {@link io.ncclinspector.report.SyntheticLogs} generates: a cluster of {@code nodes} ×
 * {@code gpusPerNode} ranks (one process and one log file per rank), a workload, and faults to
 * plant.
 *
 * @param outputDirectory where the log files go (created if missing)
 * @param nodes simulated nodes
 * @param gpusPerNode ranks per node
 * @param iterations training iterations to simulate; see {@link #expectedRecords()}
 * @param workload what each iteration issues
 * @param format whose JSON Lines to write
 * @param gzip compress each file ({@code .log.gz})
 * @param slowRank global rank that arrives late at collectives, or -1 for none
 * @param lateProbability chance that {@code slowRank} is late at one collective
 * @param lateNanos how late it is then
 * @param nodeClockOffsetsNanos per node, how far its GPU clocks are ahead of true time (missing
 *     nodes: 0); models unsynchronised clocks across nodes
 * @param uint8Probability chance that a collective uses 8-bit integers; the reference format
 *     then shows its near-2^64 message size, this project's format the {@code Unknown} datatype
 * @param threads writer threads
 * @param seed random seed: equal configurations produce equal files
 */
public record SyntheticConfig(
    Path outputDirectory,
    int nodes,
    int gpusPerNode,
    long iterations,
    Workload workload,
    LogFormat format,
    boolean gzip,
    int slowRank,
    double lateProbability,
    long lateNanos,
    List<Long> nodeClockOffsetsNanos,
    double uint8Probability,
    int threads,
    long seed) {

  public SyntheticConfig {
    Objects.requireNonNull(outputDirectory, "outputDirectory");
    Objects.requireNonNull(workload, "workload");
    Objects.requireNonNull(format, "format");
    nodeClockOffsetsNanos = List.copyOf(nodeClockOffsetsNanos);
    if (nodes < 1 || gpusPerNode < 1) {
      throw new IllegalArgumentException("nodes and gpusPerNode must be at least 1");
    }
    if ((long) nodes * gpusPerNode > 65_536) {
      throw new IllegalArgumentException("at most 65536 ranks");
    }
    if (iterations < 0) {
      throw new IllegalArgumentException("iterations must not be negative");
    }
    if (slowRank < -1 || slowRank >= nodes * gpusPerNode) {
      throw new IllegalArgumentException(
          "slowRank must be -1 or a rank below " + nodes * gpusPerNode + ": " + slowRank);
    }
    if (!(lateProbability >= 0 && lateProbability <= 1)
        || !(uint8Probability >= 0 && uint8Probability <= 1)) {
      throw new IllegalArgumentException("probabilities must lie in [0, 1]");
    }
    if (lateNanos < 0) {
      throw new IllegalArgumentException("lateNanos must not be negative");
    }
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1");
    }
  }

  public int worldSize() {
    return nodes * gpusPerNode;
  }

  /** The clock offset of a node's GPUs. */
  public long clockOffsetNanos(int node) {
    return node < nodeClockOffsetsNanos.size() ? nodeClockOffsetsNanos.get(node) : 0;
  }

  /** Records (one per rank per operation) that the configured iterations produce. */
  public long expectedRecords() {
    ClusterSimulator sim = new ClusterSimulator(this);
    long n = 0;
    for (long it = 0; it < iterations; it++) {
      n += sim.recordsIn(it);
    }
    return n;
  }

  public static Builder builder(Path outputDirectory) {
    return new Builder(outputDirectory);
  }

  /** Defaults: 2 nodes × 4 GPUs, 100 iterations of {@link Workload#TRAINING}, no fault. */
  public static final class Builder {
    private final Path outputDirectory;
    private int nodes = 2;
    private int gpusPerNode = 4;
    private long iterations = 100;
    private long targetRecords = -1;
    private Workload workload = Workload.TRAINING;
    private LogFormat format = LogFormat.JVM;
    private boolean gzip;
    private int slowRank = -1;
    private double lateProbability;
    private long lateNanos;
    private List<Long> nodeClockOffsetsNanos = List.of();
    private double uint8Probability;
    private int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
    private long seed = 1;

    private Builder(Path outputDirectory) {
      this.outputDirectory = outputDirectory;
    }

    public Builder nodes(int v) {
      nodes = v;
      return this;
    }

    public Builder gpusPerNode(int v) {
      gpusPerNode = v;
      return this;
    }

    public Builder iterations(long v) {
      iterations = v;
      targetRecords = -1;
      return this;
    }

    /** Enough iterations for at least this many records in all files together. */
    public Builder targetRecords(long v) {
      if (v < 0) {
        throw new IllegalArgumentException("targetRecords must not be negative");
      }
      targetRecords = v;
      return this;
    }

    public Builder workload(Workload v) {
      workload = v;
      return this;
    }

    public Builder format(LogFormat v) {
      format = v;
      return this;
    }

    public Builder gzip(boolean v) {
      gzip = v;
      return this;
    }

    /** Plants a straggler: {@code rank} arrives {@code lateNanos} late with this probability. */
    public Builder straggler(int rank, double probability, long lateNanos) {
      this.slowRank = rank;
      this.lateProbability = probability;
      this.lateNanos = lateNanos;
      return this;
    }

    public Builder nodeClockOffsetsNanos(List<Long> v) {
      nodeClockOffsetsNanos = v;
      return this;
    }

    public Builder uint8Probability(double v) {
      uint8Probability = v;
      return this;
    }

    public Builder threads(int v) {
      threads = v;
      return this;
    }

    public Builder seed(long v) {
      seed = v;
      return this;
    }

    public SyntheticConfig build() {
      SyntheticConfig c = new SyntheticConfig(outputDirectory, nodes, gpusPerNode, iterations,
          workload, format, gzip, slowRank, lateProbability, lateNanos, nodeClockOffsetsNanos,
          uint8Probability, threads, seed);
      if (targetRecords < 0) {
        return c;
      }
      long needed = new ClusterSimulator(c).iterationsFor(targetRecords);
      return new SyntheticConfig(outputDirectory, nodes, gpusPerNode, needed, workload, format,
          gzip, slowRank, lateProbability, lateNanos, nodeClockOffsetsNanos, uint8Probability,
          threads, seed);
    }
  }
}
