package io.ncclinspector.report.synthetic;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Simulates the timing of the operations of a multi-node job, one iteration at a time, on one
 * global clock.
 *
 * <p>The model is the one that matters for straggler analysis: every member of a collective
 * arrives (its kernel starts) at its own time; the data exchange cannot finish before the last
 * member has arrived, so all members finish together, at the last arrival plus the transfer time.
 * A member's execution time is therefore its wait for the latest member plus the transfer: the
 * late member has the shortest execution time and the punctual ones the longest.
 */
final class ClusterSimulator {
  /** 2026-11-29, in nanoseconds since the epoch: the simulated job starts here. */
  static final long EPOCH_NANOS = 1_795_942_860_000_000_000L;
  private static final long GAP_NANOS = 150_000;
  private static final long ARRIVAL_JITTER_NANOS = 3_000;
  private static final long FINISH_JITTER_NANOS = 1_000;
  private static final long[] SWEEP_BYTES = sweep();

  private final SyntheticConfig config;
  private final SplittableRandom random;
  private final List<SimCommunicator> comms = new ArrayList<>();
  private final long[][] sequence; // [comm][operation name index]
  private long clock = EPOCH_NANOS;
  private final int world;
  private int tpBase = -1;
  private int dpBase = -1;
  private int selfBase = -1;
  private int ppBase = -1;
  private int ppCount;

  ClusterSimulator(SyntheticConfig config) {
    this.config = config;
    this.random = new SplittableRandom(config.seed());
    this.world = addWorld();
    if (config.workload() == Workload.TRAINING) {
      addTrainingCommunicators();
    }
    this.sequence = new long[comms.size()][OpName.values().length];
  }

  List<SimCommunicator> communicators() {
    return comms;
  }

  /** Current end of the simulated timeline (after the last operation). */
  long clockNanos() {
    return clock;
  }

  /** Records that iteration {@code step} produces (the plan varies with the step). */
  long recordsIn(long step) {
    long n = 0;
    for (Planned p : plan(step)) {
      n += p.p2p ? 2 : comms.get(p.comm).size();
    }
    return n;
  }

  /** The fewest iterations that produce at least {@code records} records. */
  long iterationsFor(long records) {
    long total = 0;
    long it = 0;
    while (total < records) {
      total += recordsIn(it++);
    }
    return it;
  }

  /** Simulates one iteration and returns its operations in the order they ran. */
  List<SimOperation> iteration(long step) {
    List<SimOperation> out = new ArrayList<>();
    for (Planned p : plan(step)) {
      if (p.p2p) {
        simulatePair(p, step, out);
      } else {
        out.add(simulateCollective(p, step));
      }
    }
    return out;
  }

  private enum OpName { AllReduce, AllGather, ReduceScatter, Broadcast, Send, Recv }

  private record Planned(int comm, OpName op, long bytes, String phase, boolean p2p) {}

  private List<Planned> plan(long step) {
    List<Planned> plan = new ArrayList<>();
    if (config.workload() == Workload.WORLD_ALLREDUCE) {
      long[] sizes = {8L << 10, 1L << 20, 16L << 20, 128L << 20};
      plan.add(new Planned(world, OpName.AllReduce, sizes[(int) (step % sizes.length)], null,
          false));
      return plan;
    }
    int gpus = config.gpusPerNode();
    int nodes = config.nodes();
    for (int layer = 0; layer < 2; layer++) {
      for (int n = 0; tpBase >= 0 && n < nodes; n++) {
        plan.add(new Planned(tpBase + n, OpName.AllGather, 4L << 20, "forward", false));
      }
    }
    for (int n = 0; tpBase >= 0 && n < nodes; n++) {
      plan.add(new Planned(tpBase + n, OpName.ReduceScatter, 4L << 20, "backward", false));
    }
    long[] buckets = {64L << 20, 32L << 20, 16L << 20};
    for (long bucket : buckets) {
      for (int g = 0; dpBase >= 0 && g < gpus; g++) {
        plan.add(new Planned(dpBase + g, OpName.AllReduce, bucket, "backward", false));
      }
    }
    for (int p = 0; p < ppCount; p++) {
      plan.add(new Planned(ppBase + p, OpName.Send, 8L << 20, "forward", true));
    }
    plan.add(new Planned(world, OpName.AllReduce, SWEEP_BYTES[(int) (step % SWEEP_BYTES.length)],
        "optimizer", false));
    if (step % 10 == 0) {
      plan.add(new Planned(world, OpName.Broadcast, 1L << 20, "optimizer", false));
    }
    for (int r = 0; selfBase >= 0 && r < world(); r++) {
      plan.add(new Planned(selfBase + r, OpName.AllReduce, 256L << 10, "optimizer", false));
    }
    return plan;
  }

  private int world() {
    return config.worldSize();
  }

  private SimOperation simulateCollective(Planned p, long step) {
    SimCommunicator c = comms.get(p.comm);
    int n = c.size();
    String[] type = datatype();
    int elementBytes = Integer.parseInt(type[1]);
    long bytes = Math.max(elementBytes, p.bytes - p.bytes % elementBytes);
    long transfer = transferNanos(c, p.op, bytes);
    long[] arrival = new long[n];
    long last = Long.MIN_VALUE;
    for (int m = 0; m < n; m++) {
      arrival[m] = clock + random.nextLong(ARRIVAL_JITTER_NANOS);
      if (c.globalRanks()[m] == config.slowRank() && config.lateProbability() > 0
          && random.nextDouble() < config.lateProbability()) {
        arrival[m] += config.lateNanos();
      }
      last = Math.max(last, arrival[m]);
    }
    int[] members = new int[n];
    long[] start = new long[n];
    long[] exec = new long[n];
    long[] skew = new long[n];
    long end = Long.MIN_VALUE;
    for (int m = 0; m < n; m++) {
      long finish = last + transfer + random.nextLong(FINISH_JITTER_NANOS);
      members[m] = m;
      start[m] = arrival[m];
      exec[m] = finish - arrival[m];
      skew[m] = random.nextLong(800);
      end = Math.max(end, finish);
    }
    clock = end + GAP_NANOS;
    int channels = (int) Math.max(1, Math.min(32, bytes / (512 << 10)));
    return new SimOperation(p.comm, false, p.op.name(), sequence[p.comm][p.op.ordinal()]++, bytes,
        type[0], elementBytes, bytes < (256 << 10) ? "TREE" : "RING", protocol(bytes), channels,
        0, -1, step, p.phase, members, start, exec, skew);
  }

  /** A send from member 0 to member 1 of a two-rank communicator: one record on each side. */
  private void simulatePair(Planned p, long step, List<SimOperation> out) {
    SimCommunicator c = comms.get(p.comm);
    long transfer = transferNanos(c, OpName.Send, p.bytes);
    long sendArrival = clock + random.nextLong(ARRIVAL_JITTER_NANOS);
    long recvArrival = clock + random.nextLong(ARRIVAL_JITTER_NANOS);
    long finish = Math.max(sendArrival, recvArrival) + transfer;
    int channels = 2;
    out.add(new SimOperation(p.comm, true, "Send", sequence[p.comm][OpName.Send.ordinal()]++,
        p.bytes, "ncclFloat32", 4, null, null, channels, 0, 1, step, p.phase, new int[] {0},
        new long[] {sendArrival}, new long[] {finish - sendArrival},
        new long[] {random.nextLong(800)}));
    out.add(new SimOperation(p.comm, true, "Recv", sequence[p.comm][OpName.Recv.ordinal()]++,
        p.bytes, "ncclFloat32", 4, null, null, channels, 0, 0, step, p.phase, new int[] {1},
        new long[] {recvArrival}, new long[] {finish + 500 - recvArrival},
        new long[] {random.nextLong(800)}));
    clock = finish + GAP_NANOS;
  }

  /** Latency plus the bus bytes at the link's bus bandwidth, with noise and rare hiccups. */
  private long transferNanos(SimCommunicator c, OpName op, long bytes) {
    double factor = BusBandwidth.factor(op.name(), c.size());
    SimCommunicator.Link link = c.link();
    double busBytes = factor > 0 ? bytes * factor : bytes;
    double nanos = link.latencyNanos + busBytes / link.busBandwidth;
    nanos *= 1 + 0.04 * Math.abs(gaussian());
    if (random.nextDouble() < 0.005) {
      nanos *= 2 + 2 * random.nextDouble();
    }
    return (long) nanos;
  }

  private double gaussian() {
    // Box-Muller on the simulator's own generator keeps runs reproducible.
    double u = 1 - random.nextDouble();
    double v = random.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  private String[] datatype() {
    if (config.uint8Probability() > 0 && random.nextDouble() < config.uint8Probability()) {
      return new String[] {"ncclUint8", "1"};
    }
    return random.nextInt(4) == 0 ? new String[] {"ncclBfloat16", "2"}
        : new String[] {"ncclFloat32", "4"};
  }

  private static String protocol(long bytes) {
    if (bytes < (64 << 10)) {
      return "LL";
    }
    return bytes < (4 << 20) ? "LL128" : "SIMPLE";
  }

  private static long[] sweep() {
    long[] s = new long[10];
    for (int i = 0; i < s.length; i++) {
      s[i] = 1L << (10 + 2 * i); // 1 KiB ... 256 MiB
    }
    return s;
  }

  private int addWorld() {
    int[] all = new int[world()];
    for (int r = 0; r < all.length; r++) {
      all[r] = r;
    }
    SimCommunicator.Link link = config.nodes() == 1
        ? (all.length == 1 ? SimCommunicator.Link.LOCAL : SimCommunicator.Link.NVLINK)
        : config.gpusPerNode() == 1 ? SimCommunicator.Link.NETWORK : SimCommunicator.Link.MIXED;
    return add("world", all, config.nodes(), link);
  }

  private void addTrainingCommunicators() {
    int gpus = config.gpusPerNode();
    int nodes = config.nodes();
    if (gpus > 1) {
      tpBase = comms.size();
      for (int n = 0; n < nodes; n++) {
        int[] ranks = new int[gpus];
        for (int g = 0; g < gpus; g++) {
          ranks[g] = n * gpus + g;
        }
        add("tp" + n, ranks, 1, SimCommunicator.Link.NVLINK);
      }
    }
    if (nodes > 1) {
      dpBase = comms.size();
      for (int g = 0; g < gpus; g++) {
        int[] ranks = new int[nodes];
        for (int n = 0; n < nodes; n++) {
          ranks[n] = n * gpus + g;
        }
        add("dp" + g, ranks, nodes, SimCommunicator.Link.NETWORK);
      }
      ppBase = comms.size();
      for (int n = 0; n + 1 < nodes; n++) {
        add("pp" + n, new int[] {n * gpus, (n + 1) * gpus}, 2, SimCommunicator.Link.NETWORK);
        ppCount++;
      }
    }
    selfBase = comms.size();
    for (int r = 0; r < world(); r++) {
      add("self" + r, new int[] {r}, 1, SimCommunicator.Link.LOCAL);
    }
  }

  private int add(String name, int[] ranks, int nodes, SimCommunicator.Link link) {
    comms.add(new SimCommunicator(random.nextLong(), name, ranks, nodes, link));
    return comms.size() - 1;
  }
}
