package io.ncclinspector.examples.nccl;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reproduces NCCL's kernel-channel counter desync (NCCL 2.28–2.30) on any two or more GPUs and
 * shows what each clock makes of it. A send/receive to the own rank (every AlltoAll holds one)
 * runs a work item on some channels without a profiler proxy operation, so the host's per-channel
 * profiler counter falls one behind the device's, and every later kernel-channel event on those
 * channels carries the timestamps of an earlier work item.
 *
 * <ul>
 *   <li>{@code --mode reproducer}: AllReduce over sizes cycling 8 KiB .. 64 MiB ({@code --cycles}
 *       times), one AlltoAll, then the same AllReduces again;
 *   <li>{@code --mode moe}: an MoE-style loop, per step AllReduce, AlltoAll, AllGather and a ring
 *       Send/Recv ({@code --steps}, default 100).
 * </ul>
 * Every call is timed alone: ranks meet at a barrier, a CUDA-event pair brackets the call, CUPTI
 * (with {@code --cupti}) gives its kernel's duration; rank 0 prints, per phase (before / after the
 * first AlltoAll), operation and size, the CUDA-event, CUPTI, inspector and reference times and
 * how many figures each profiler got right, wrong or withheld. Every rank writes its calls to
 * {@code calls-<run>-<inspector mode>-rank<R>.jsonl} (see {@link CallReport}; {@code --run} names
 * the run, by default after {@code --mode}). {@code --alltoalls N} puts N AlltoAlls in the middle:
 * each adds one to the channels' lag, and past 64 NCCL's slot ring wraps.
 *
 * <p>One process per rank; launch with {@code examples/desync-reproducer.sh}. {@code --dry-run}
 * prints the plan without touching a GPU.
 */
public final class DesyncReproducer {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** One planned NCCL call. Untimed steps warm up connections. */
  record Step(Operation op, long bytes, String label, boolean timed) {}

  record Options(NcclSession.Common common, String mode, String run, List<Operation> cycleOps, List<Long> sizes, int cycles,
      int warmupCycles, long alltoallBytes, int alltoalls, int steps, List<Long> moeSizes,
      CallReport.Tolerance tolerance) {

    static Options parse(String[] argv) {
      Args a = Args.parse(argv, NcclSession.COMMON_FLAGS);
      NcclSession.Common c = NcclSession.Common.parse(a);
      List<Operation> ops = new ArrayList<>();
      for (String s : a.string("ops", "AllReduce").split(",")) {
        ops.add(Operation.byName(s.trim()));
      }
      String mode = a.string("mode", "reproducer");
      Options o = new Options(c, mode, a.string("run", mode), ops,
          a.sizes("sizes", "8K,64K,256K,1M,4M,16M,64M"), a.integer("cycles", 20), a.integer("warmup-cycles", 1),
          a.longValue("alltoall-bytes", 1 << 20), a.integer("alltoalls", 1), a.integer("steps", 100),
          a.sizes("moe-sizes", "4M,1M,256K,2M"),
          new CallReport.Tolerance(a.decimal("tolerance-us", 6), a.decimal("tolerance-pct", 5) / 100,
              a.decimal("tolerance-event-us", 40)));
      a.rejectUnknown();
      if (!o.mode.equals("reproducer") && !o.mode.equals("moe")) {
        throw new IllegalArgumentException("--mode reproducer|moe, got " + o.mode);
      }
      if (o.moeSizes.size() != 4) {
        throw new IllegalArgumentException("--moe-sizes needs 4 sizes (AllReduce, AlltoAll, AllGather, SendRecv)");
      }
      for (Operation op : ops) {
        if (op == Operation.ALL_TO_ALL) {
          throw new IllegalArgumentException("--ops: the cycle must not hold an AlltoAll (it is the disturbance)");
        }
      }
      return o;
    }
  }

  static List<Step> plan(Options o) {
    List<Step> plan = new ArrayList<>();
    if (o.mode().equals("reproducer")) {
      for (int w = 0; w < o.warmupCycles(); w++) {
        for (Operation op : o.cycleOps()) {
          for (long s : o.sizes()) {
            plan.add(new Step(op, s, "warmup", false));
          }
        }
      }
      for (String label : List.of("cycle", "alltoall", "cycle")) {
        if (label.equals("alltoall")) {
          for (int i = 0; i < o.alltoalls(); i++) {
            plan.add(new Step(Operation.ALL_TO_ALL, o.alltoallBytes(), "alltoall", true));
          }
          continue;
        }
        for (int c = 0; c < o.cycles(); c++) {
          for (Operation op : o.cycleOps()) {
            for (long s : o.sizes()) {
              plan.add(new Step(op, s, label, true));
            }
          }
        }
      }
    } else {
      List<Long> m = o.moeSizes();
      /* Connections for every operation but the AlltoAll, so that the first step's figures are not set-up times. */
      for (int w = 0; w < o.warmupCycles(); w++) {
        plan.add(new Step(Operation.ALL_REDUCE, m.get(0), "warmup", false));
        plan.add(new Step(Operation.ALL_GATHER, m.get(2), "warmup", false));
        plan.add(new Step(Operation.SEND_RECV, m.get(3), "warmup", false));
      }
      for (int s = 0; s < o.steps(); s++) {
        plan.add(new Step(Operation.ALL_REDUCE, m.get(0), "moe", true));
        plan.add(new Step(Operation.ALL_TO_ALL, m.get(1), "moe", true));
        plan.add(new Step(Operation.ALL_GATHER, m.get(2), "moe", true));
        plan.add(new Step(Operation.SEND_RECV, m.get(3), "moe", true));
      }
    }
    return plan;
  }

  /** Records this inspector should account for: one per collective, one per Send/Recv task. */
  static long expectedRecords(List<Step> plan, int ranks) {
    CallCounter counter = new CallCounter(ranks);
    plan.forEach(s -> counter.next(s.op()));
    return counter.expectedRecords();
  }

  static long bufferBytes(List<Step> plan) {
    return plan.stream().mapToLong(Step::bytes).max().orElse(4);
  }

  static String describe(Options o, List<Step> plan) {
    Map<String, Integer> counts = new TreeMap<>();
    for (Step s : plan) {
      counts.merge(s.label() + " " + s.op().name + (s.timed() ? "" : " (untimed)"), 1, Integer::sum);
    }
    return String.format("plan %s (%s): %d calls %s, buffers 2 x %s, %d records expected with the inspector on",
        o.run(), o.mode(), plan.size(), counts, Sizes.label(bufferBytes(plan)), expectedRecords(plan, o.common().ranks()));
  }

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    List<Step> plan = plan(o);
    PrintStream out = System.out;
    if (o.common().rank() == 0 || o.common().dryRun()) {
      out.println(describe(o, plan));
    }
    if (o.common().dryRun()) {
      return;
    }
    run(o, plan, out);
  }

  static void run(Options o, List<Step> plan, PrintStream out) throws Exception {
    NcclSession.Common c = o.common();
    try (NcclSession session = new NcclSession(c, bufferBytes(plan), b -> b, true, out);
        CallTimer timer = session.timer()) {
      CallCounter counter = new CallCounter(c.ranks());
      List<CallReport.CallSample> samples = new ArrayList<>();
      List<KernelWindows.Window> windows = new ArrayList<>();
      long t0 = System.nanoTime();
      int iteration = 0;
      try {
        for (Step s : plan) {
          CallCounter.CallId id = counter.next(s.op());
          session.step(id.call());
          Runnable launch = () -> session.launch(s.op(), s.bytes());
          if (!s.timed()) {
            timer.untimed(launch);
            continue;
          }
          CallTimer.Timing t = timer.time(launch);
          samples.add(new CallReport.CallSample(id, s.label(), s.bytes(), iteration++, t));
          windows.add(new KernelWindows.Window(id.call(), t.cuptiFromNanos(), t.cuptiToNanos()));
        }
      } catch (RuntimeException | Error e) {
        session.barrier.abort(); /* the other ranks stop waiting at the barrier instead of timing out */
        throw e;
      }
      long runMillis = (System.nanoTime() - t0) / 1_000_000;
      long expected = expectedRecords(plan, c.ranks());
      boolean complete = session.awaitRecords(expected, Duration.ofSeconds(30));
      KernelWindows.Assignment kernels = session.cupti != null
          ? KernelWindows.assign(windows, session.cupti.drain()) : null;
      ReferenceOutput reference = session.destroyCommunicator();
      List<CallReport.CallRow> rows = CallReport.join(o.run(), session.mode, c.rank(), samples,
          session.inspector != null ? session.recordsByStep() : null,
          session.mode.equals("reference") ? reference : null, kernels, o.tolerance());
      String stem = o.run() + "-" + session.mode + "-rank" + c.rank();
      CallReport.writeJsonLines(c.out().resolve("calls-" + stem + ".jsonl"), rows);
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("program", "DesyncReproducer");
      result.put("mode", o.mode());
      result.put("run", o.run());
      result.put("alltoalls", o.alltoalls());
      result.put("inspector", session.mode);
      result.put("rank", c.rank());
      result.put("ranks", c.ranks());
      result.put("ncclVersion", session.ncclVersion);
      result.put("calls", counter.calls());
      result.put("runMillis", runMillis);
      result.put("tolerance", o.tolerance());
      result.put("cupti", session.cupti != null);
      if (kernels != null) {
        result.put("cuptiKernelsOutsideWindows", kernels.unattributed());
        result.put("cuptiDropped", session.cupti.dropped());
      }
      if (session.inspector != null) {
        result.put("recordsExpected", expected);
        result.put("recordsReceived", session.recordsReceived());
        result.put("recordsComplete", complete);
        result.put("counters", session.inspector.counters());
        result.put("problems", session.inspector.status().problems());
        session.inspector.status().kernelRecords().ifPresent(k -> result.put("kernelRecords", k));
        result.put("outputFile", session.inspector.status().output().map(io.ncclinspector.InspectorStatus.Output::file).map(Path::toString).orElse(""));
        result.put("quarantineFile", session.inspector.status().output().map(io.ncclinspector.InspectorStatus.Output::quarantineFile).map(Path::toString).orElse(""));
        result.put("traceFile", session.inspector.status().recording().map(rec -> rec.file()).map(Path::toString).orElse(""));
      }
      if (session.mode.equals("reference")) {
        result.put("referenceFiles", reference.files().stream().map(Path::toString).toList());
        result.put("referenceRecords", reference.records().size());
        result.put("referenceDamagedLines", reference.damagedLines());
      }
      JSON.writeValue(c.out().resolve("result-" + stem + ".json").toFile(), result);
      if (c.rank() == 0) {
        out.printf("%n%s, %s, rank 0: %d calls in %d ms%s%s%n", o.run(), session.mode, counter.calls(), runMillis,
            session.inspector != null ? String.format("; records %d of %d expected (drops %d)",
                session.recordsReceived(), expected, session.inspector.counters().totalDrops()) : "",
            kernels != null ? String.format("; CUPTI kernels outside windows %d, dropped %d", kernels.unattributed(),
                session.cupti.dropped()) : "");
        if (session.inspector != null) {
          session.inspector.status().kernelRecords().ifPresent(k -> out.printf(
              "kernel records: %s%s; timed %d, as a group %d, other in shared kernels %d, missing %d; compared with"
                  + " channels %d: kernel - channels min %.1f / mean %.1f / max %.1f us, disagreeing %d%n",
              k.active() ? "active" : "inactive", k.active() || k.reason().isEmpty() ? "" : " (" + k.reason() + ")", k.timed(),
              k.groupTimed(), k.shared(), k.missing(), k.compared(), k.minKernelMinusChannelsNanos() / 1e3,
              k.meanKernelMinusChannelsNanos() / 1e3, k.maxKernelMinusChannelsNanos() / 1e3, k.disagreeing()));
        }
        out.println(CallReport.perCall(rows));
        out.println(CallReport.table(rows));
        out.println(CallReport.summary(rows));
      }
    }
  }
}
