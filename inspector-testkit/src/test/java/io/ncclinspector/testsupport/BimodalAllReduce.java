package io.ncclinspector.testsupport;

import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.testkit.RecordBuilder;
import io.ncclinspector.testkit.SyntheticTrace;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;

/**
 * A synthetic stand-in for the trace of issue 14: 2 ranks over NVLink, 2,000 AllReduce of 64 KiB
 * in a loop. Execution times are bimodal — 3 to 8 µs when the ranks arrive together (most near
 * 8 µs), 60 to 95 µs when this rank waits for the other (8.5 %) — with a thin tail to 300 µs and
 * one operation of 573 µs: p50 8 µs, p99 about 95 µs, max 573 µs. The GPU start follows the enqueue
 * after a GPU-clock offset of +1.2 ms and a launch delay of 6 to 14 µs; the two channels start
 * within 1 µs of each other.
 */
public final class BimodalAllReduce {
  public static final int OPERATIONS = 2000;
  public static final long BYTES = 64 << 10;
  /** GPU clock minus host clock. */
  public static final long CLOCK_OFFSET_NANOS = 1_200_000;
  /** Host wall time of the first enqueue; operations are enqueued 150 µs apart. */
  public static final long WALL0 = SyntheticTrace.WALL + 10_000_151_000L;
  public static final long PERIOD_NANOS = 150_000;

  /** One operation: execution time, delay from enqueue to GPU start (GPU clock), channel skew. */
  public record Op(long executionNanos, long startDelayNanos, long skewNanos) {
    /** This operation waiting {@code nanos} longer (its channels started as usual). */
    public Op waitingFor(long totalNanos) {
      return new Op(totalNanos, startDelayNanos, skewNanos);
    }
  }

  private BimodalAllReduce() {}

  public static List<Op> generate(long seed) {
    Random rnd = new Random(seed);
    List<Op> ops = new ArrayList<>(OPERATIONS);
    int tallest = rnd.nextInt(OPERATIONS);
    for (int i = 0; i < OPERATIONS; i++) {
      double u = rnd.nextDouble();
      double micros;
      if (i == tallest) {
        micros = 573;
      } else if (u < 0.004) {
        micros = 95 + 205 * rnd.nextDouble();
      } else if (u < 0.089) {
        micros = 60 + 35 * rnd.nextDouble();
      } else {
        micros = 8 - 5 * Math.pow(rnd.nextDouble(), 4);
      }
      long delay = CLOCK_OFFSET_NANOS + 6_000 + rnd.nextInt(8_000);
      ops.add(new Op(Math.round(micros * 1000), delay, rnd.nextInt(1_000)));
    }
    return ops;
  }

  public static final CommunicatorInfo COMMUNICATOR = new CommunicatorInfo(7, 0xb1_40da1L, "dp", 0, 2, 1, 5);

  /** Operation {@code i} as the record the native core would make of it. */
  public static CollectiveRecord record(int i, Op op) {
    long wall = WALL0 + i * PERIOD_NANOS;
    long gpuStart = wall + op.startDelayNanos();
    return RecordBuilder.collective(COMMUNICATOR, "AllReduce").sequence(i).messageBytes(BYTES).algorithm("RING", "LL")
        .channels(2, 2).executionNanos(op.executionNanos()).algorithmBandwidthGbs(1).busBandwidthGbs(1)
        .gpu(gpuStart, op.executionNanos() + op.skewNanos(), op.skewNanos()).startWallNanos(wall).buildCollective();
  }

  public static List<CollectiveRecord> records(List<Op> ops) {
    List<CollectiveRecord> out = new ArrayList<>(ops.size());
    for (int i = 0; i < ops.size(); i++) {
      out.add(record(i, ops.get(i)));
    }
    return out;
  }

  /** The operations with some replaced, by index. */
  public static List<Op> planted(List<Op> ops, Map<Integer, Op> replacements) {
    List<Op> out = new ArrayList<>(ops);
    replacements.forEach(out::set);
    return out;
  }

  /**
   * The operations as a trace for the native core (format of testdata/traces), one process,
   * rank 0 of 2, two kernel channels per operation: each launched and enqueued
   * {@link #PERIOD_NANOS} after the previous one, its channels' events delivered in time order as
   * NCCL's proxy thread would, 2 µs after the GPU (clock offset removed) stopped.
   */
  public static Path trace(List<Op> ops, Path dir, long pid) throws IOException {
    SyntheticTrace s = new SyntheticTrace();
    s.clock(T0).init(1, COMMUNICATOR.id(), 0, 2);
    PriorityQueue<long[]> pending = new PriorityQueue<>(Comparator.comparingLong(p -> p[0]));
    for (int i = 0; i < ops.size(); i++) {
      long enqueue = T0 + (i + 1) * PERIOD_NANOS;
      deliver(s, pending, enqueue);
      Op op = ops.get(i);
      int h = s.clock(enqueue).kernelLaunch(1).coll(1, "AllReduce", i, BYTES / 4, "ncclFloat32", 2);
      long gpuStart = s.lastWall() + op.startDelayNanos(); /* the start event's wall time is the enqueue's */
      s.stop(h);
      long stop0 = gpuStart + op.executionNanos();
      long stop1 = gpuStart + op.skewNanos() + op.executionNanos();
      pending.add(new long[] {hostTime(stop1), h, gpuStart, stop0, stop1});
    }
    deliver(s, pending, Long.MAX_VALUE);
    s.fini(1);
    return s.write(dir, pid);
  }

  private static final long T0 = 10_000_000_000L;

  private static long hostTime(long gpuNanos) {
    return gpuNanos - CLOCK_OFFSET_NANOS - SyntheticTrace.WALL + 2_000;
  }

  private static void deliver(SyntheticTrace s, PriorityQueue<long[]> pending, long until) {
    while (!pending.isEmpty() && pending.peek()[0] <= until) {
      long[] p = pending.poll();
      int h = (int) p[1];
      s.clock(p[0]);
      int ch0 = s.kernelChannel(1, h, 0, p[2]);
      int ch1 = s.kernelChannel(1, h, 1, p[2] + (p[4] - p[3]));
      s.kernelChannelDone(ch0, p[3]).kernelChannelDone(ch1, p[4]);
    }
  }
}
