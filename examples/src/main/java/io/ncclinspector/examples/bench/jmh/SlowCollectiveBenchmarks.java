package io.ncclinspector.examples.bench.jmh;

import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.SlowCollectiveDetection;
import io.ncclinspector.internal.SlowCollectiveDetector;
import io.ncclinspector.testkit.RecordBuilder;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What the slow-collective detector costs per record on the analysis thread: the current one
 * ({@link SlowCollectiveDetector}, windowed histogram) against the baseline it replaced
 * ({@link BaselineMadDetector}, median/MAD of a sorted window), in the same run, on the same
 * records: 4 communicators, each with a bimodal 64 KiB AllReduce (3-8 µs, 8.5 % waiting 60-95 µs),
 * a 16 MiB AllReduce, a 4 MiB ReduceScatter and AllGather, and 2 MiB Send/Recv, interleaved.
 *
 * <pre>
 * bench/jmh SlowCollectiveBenchmarks
 * </pre>
 */
@Fork(value = 1, jvmArgsAppend = {"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SlowCollectiveBenchmarks {
  static final int STREAM = 1 << 16;

  /** The records, made once. */
  @State(Scope.Benchmark)
  public static class Stream {
    final OperationRecord[] records = new OperationRecord[STREAM];

    @Setup(Level.Trial)
    public void make() {
      Random rnd = new Random(42);
      for (int i = 0; i < STREAM; i++) {
        CommunicatorInfo c = new CommunicatorInfo(1 + rnd.nextInt(4), 0x1000L + i % 4, "dp", 0, 8, 1, 5);
        long seq = i / 4;
        records[i] = switch (rnd.nextInt(6)) {
          case 0, 1 -> collective(c, "AllReduce", "LL", 64 << 10, seq,
              rnd.nextDouble() < 0.085 ? 60_000 + rnd.nextInt(35_000) : 3_000 + rnd.nextInt(5_000));
          case 2 -> collective(c, "AllReduce", "SIMPLE", 16 << 20, seq, jitter(rnd, 200_000));
          case 3 -> collective(c, "ReduceScatter", "SIMPLE", 4 << 20, seq, jitter(rnd, 60_000));
          case 4 -> collective(c, "AllGather", "SIMPLE", 4 << 20, seq, jitter(rnd, 55_000));
          default -> RecordBuilder.p2p(c, rnd.nextBoolean() ? "Send" : "Recv").sequence(seq).messageBytes(2 << 20)
              .channels(1, 1).executionNanos(jitter(rnd, 12_000)).algorithmBandwidthGbs(1).busBandwidthGbs(1)
              .gpu(1_000_000L + seq, 12_000, 0).startWallNanos(seq).build();
        };
      }
    }

    private static long jitter(Random rnd, long median) {
      return Math.round(median * Math.exp(0.1 * rnd.nextGaussian()));
    }

    private static CollectiveRecord collective(CommunicatorInfo c, String op, String proto, long bytes, long seq,
        long exec) {
      return RecordBuilder.collective(c, op).sequence(seq).messageBytes(bytes).algorithm("RING", proto)
          .executionNanos(exec).algorithmBandwidthGbs(1).busBandwidthGbs(1).gpu(1_000_000L + seq * 1000, exec + 300, 300)
          .startWallNanos(seq * 1000).buildCollective();
    }
  }

  /** The detectors, warmed by the stream once before measuring. */
  @State(Scope.Benchmark)
  public static class Detectors {
    SlowCollectiveDetector current;
    BaselineMadDetector baseline;

    @Setup(Level.Trial)
    public void make(Stream s) {
      current = new SlowCollectiveDetector(SlowCollectiveDetection.defaults());
      baseline = new BaselineMadDetector();
      for (OperationRecord r : s.records) {
        current.observe(r);
        baseline.observe(r);
      }
    }
  }

  @Benchmark
  @OperationsPerInvocation(STREAM)
  public void currentHistogramDetector(Stream s, Detectors d, Blackhole bh) {
    for (OperationRecord r : s.records) {
      bh.consume(d.current.observe(r));
    }
  }

  @Benchmark
  @OperationsPerInvocation(STREAM)
  public void baselineMedianMadDetector(Stream s, Detectors d, Blackhole bh) {
    for (OperationRecord r : s.records) {
      bh.consume(d.baseline.observe(r));
    }
  }
}
