package io.ncclinspector.examples.nccl;

import static org.bytedeco.cuda.global.cudart.cudaGraphDestroy;
import static org.bytedeco.cuda.global.cudart.cudaGraphExecDestroy;
import static org.bytedeco.cuda.global.cudart.cudaGraphInstantiate;
import static org.bytedeco.cuda.global.cudart.cudaGraphLaunch;
import static org.bytedeco.cuda.global.cudart.cudaStreamBeginCapture;
import static org.bytedeco.cuda.global.cudart.cudaStreamCaptureModeThreadLocal;
import static org.bytedeco.cuda.global.cudart.cudaStreamCreate;
import static org.bytedeco.cuda.global.cudart.cudaStreamDestroy;
import static org.bytedeco.cuda.global.cudart.cudaStreamEndCapture;
import static org.bytedeco.cuda.global.cudart.cudaStreamSynchronize;
import static org.bytedeco.cuda.global.nccl.ncclCommDestroy;
import static org.bytedeco.cuda.global.nccl.ncclCommInitRank;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.KernelChannelTrace;
import io.ncclinspector.ListenerRegistration;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.internal.NativeCore;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.bytedeco.cuda.cudart.CUgraphExec_st;
import org.bytedeco.cuda.cudart.CUgraph_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;

/**
 * Long runs of one communicator, for what a sweep does not show:
 * <ul>
 *   <li>{@code --mode stress}: {@code --calls} back-to-back AllReduces of {@code --bytes}
 *       (synchronised every {@code --sync-every} calls), sampling resident memory, the process's
 *       malloc'd bytes (the native core allocates all it needs at {@code enable()}) and the JVM heap;
 *       at the end every call must be accounted for: a record (by timing source and quarantine
 *       reason), or a drop with its reason. With {@code --latency} (verbose records) each record's
 *       delay from its last NCCL callback to its arrival at a listener is measured.
 *   <li>{@code --mode graph}: {@code --graph-ops} AllReduces captured into a CUDA graph, replayed
 *       {@code --replays} times, each replay timed by CUDA events (and CUPTI per kernel with
 *       {@code --cupti}); NCCL reports every replay, so there must be one record per operation per
 *       replay, each flagged {@code GRAPH_LAUNCHED}. The graph is freed before the communicator
 *       (a run hung in {@code ncclCommDestroy} otherwise).
 *   <li>{@code --mode detector}: the data for the slow-collective detector: {@code --loop-calls}
 *       AllReduces of {@code --loop-bytes} as a training loop issues them (no barrier, the ranks'
 *       natural skew), then {@code --second-calls} of {@code --second-bytes} (a size change), then
 *       a second communicator created with {@code NCCL_PROTO=--proto} (a protocol change) for
 *       {@code --proto-calls} more of {@code --loop-bytes}. Calls listed in {@code --delay-calls}
 *       are made late by {@code --delay-us} on rank {@code --delay-rank}: real waits for a peer, with
 *       their call numbers in the result as ground truth. Meant to run with the raw event recording.
 * </ul>
 * One process per rank, as {@link NcclBenchmark} (same rendezvous and launcher options).
 */
public final class NcclLongRun {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  record Options(NcclSession.Common common, String mode, long bytes, long calls, int syncEvery, int samples,
      double maxSeconds, boolean latency, int graphOps, int replays, int loopCalls, long loopBytes, int secondCalls, long secondBytes,
      int protoCalls, String proto, String algo, Set<Long> delayCalls, long delayMicros, int delayRank) {

    static Options parse(String[] argv) {
      Args a = Args.parse(argv, concat(NcclSession.COMMON_FLAGS, "latency"));
      NcclSession.Common c = NcclSession.Common.parse(a);
      Set<Long> delays = new TreeSet<>(a.sizes("delay-calls", "10,600,1500"));
      Options o = new Options(c, a.string("mode", "stress"), a.longValue("bytes", 8192), a.longValue("calls", 100_000),
          a.integer("sync-every", 100), a.integer("samples", 20), a.decimal("max-seconds", 0), a.flag("latency"), a.integer("graph-ops", 4),
          a.integer("replays", 200), a.integer("loop-calls", 2000), a.longValue("loop-bytes", 64 << 10),
          a.integer("second-calls", 500), a.longValue("second-bytes", 1 << 20), a.integer("proto-calls", 1000),
          a.string("proto", "Simple"), a.string("algo", ""), delays, a.longValue("delay-us", 2000),
          a.integer("delay-rank", 1));
      a.rejectUnknown();
      if (!Set.of("stress", "graph", "detector").contains(o.mode)) {
        throw new IllegalArgumentException("--mode stress|graph|detector, got " + o.mode);
      }
      if (o.syncEvery < 1 || o.samples < 1 || o.graphOps < 1 || o.replays < 1) {
        throw new IllegalArgumentException("--sync-every, --samples, --graph-ops and --replays must be >= 1");
      }
      return o;
    }

    String describe() {
      return switch (mode) {
        case "stress" -> String.format("plan stress: %,d AllReduces of %s, synchronised every %d, %d memory samples%s%s",
            calls, Sizes.label(bytes), syncEvery, samples, latency ? ", verbose records for latency" : "",
            maxSeconds > 0 ? String.format(", at most %.0f s (then fewer calls)", maxSeconds) : "");
        case "graph" -> String.format("plan graph: %d AllReduces of %s captured, 2 warm-up + %d timed replays: %d records expected",
            graphOps, Sizes.label(bytes), replays, (long) graphOps * (replays + 2));
        default -> String.format("plan detector: %d AllReduces of %s, %d of %s, then a second communicator (NCCL_PROTO=%s%s)"
            + " with %d of %s; delayed by %d us on rank %d: calls %s", loopCalls, Sizes.label(loopBytes), secondCalls,
            Sizes.label(secondBytes), proto, algo.isEmpty() ? "" : ", NCCL_ALGO=" + algo, protoCalls,
            Sizes.label(loopBytes), delayMicros, delayRank, delayCalls);
      };
    }
  }

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    PrintStream out = System.out;
    if (o.common().rank() == 0 || o.common().dryRun()) {
      out.println(o.describe());
    }
    if (o.common().dryRun()) {
      return;
    }
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("program", "NcclLongRun");
    result.put("mode", o.mode());
    result.put("rank", o.common().rank());
    result.put("ranks", o.common().ranks());
    switch (o.mode()) {
      case "stress" -> stress(o, result, out);
      case "graph" -> graph(o, result, out);
      default -> detector(o, result, out);
    }
  }

  // ---------------------------------------------------------------------------------- stress

  /** Counts what the listener hears, by timing source / quarantine / flag; optional latency samples. */
  static final class Accounting implements InspectorListener {
    final Map<String, LongAdder> byKind = new ConcurrentHashMap<>();
    final LongAdder heard = new LongAdder();
    final long[] latencies;
    final AtomicInteger latencyCount = new AtomicInteger();
    final LongAdder noCallbackTime = new LongAdder();

    Accounting(int latencyCapacity) {
      latencies = new long[latencyCapacity];
    }

    @Override
    public void operationCompleted(OperationRecord r) {
      long arrival = CallTimer.wallNanos();
      heard.increment();
      String q = r.timing().quarantine().name();
      String key = "NONE".equals(q) ? "timing " + r.timing().source().name() : "quarantined " + q;
      byKind.computeIfAbsent(key, k -> new LongAdder()).increment();
      for (Enum<?> f : r.flags()) {
        byKind.computeIfAbsent("flag " + f.name(), k -> new LongAdder()).increment();
      }
      if (latencies.length > 0) {
        long last = r.timing().stopWallNanos();
        for (KernelChannelTrace ch : r.trace().channels()) {
          last = Math.max(last, Math.max(ch.stopWallNanos(), ch.recordWallNanos()));
        }
        if (last == 0) {
          noCallbackTime.increment();
          return;
        }
        int i = latencyCount.getAndIncrement();
        if (i < latencies.length) {
          latencies[i] = arrival - last;
        }
      }
    }

    Map<String, Long> kinds() {
      Map<String, Long> m = new TreeMap<>();
      byKind.forEach((k, v) -> m.put(k, v.sum()));
      return m;
    }

    Map<String, Object> latencyPercentiles() {
      int n = Math.min(latencyCount.get(), latencies.length);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("samples", n);
      m.put("withoutCallbackTime", noCallbackTime.sum());
      if (n == 0) {
        return m;
      }
      long[] a = Arrays.copyOf(latencies, n);
      Arrays.sort(a);
      for (double p : new double[] {50, 90, 99, 99.9}) {
        m.put("p" + (p == Math.rint(p) ? String.valueOf((int) p) : String.valueOf(p)) + "Micros",
            a[(int) Math.min(n - 1, Math.floor(p / 100 * n))] / 1e3);
      }
      m.put("maxMicros", a[n - 1] / 1e3);
      m.put("minMicros", a[0] / 1e3);
      return m;
    }
  }

  static void stress(Options o, Map<String, Object> result, PrintStream out) throws Exception {
    NcclSession.Common c = o.common();
    int latencyCapacity = o.latency() ? (int) Math.min(o.calls(), 4_000_000) : 0;
    try (NcclSession session = new NcclSession(c, o.bytes(),
        b -> b.dumpDirectory(c.out().resolve("inspector-stress")).jsonOutput(false).verbose(o.latency()), false, out)) {
      Accounting acc = new Accounting(latencyCapacity);
      ListenerRegistration reg = session.inspector != null ? session.inspector.addListener(acc) : null;
      long every = Math.max(1, o.calls() / o.samples());
      long deadline = o.maxSeconds() > 0 ? System.nanoTime() + (long) (o.maxSeconds() * 1e9) : Long.MAX_VALUE;
      List<Map<String, Object>> memory = new ArrayList<>();
      long t0 = System.nanoTime();
      long done = 0;
      while (done < o.calls()) {
        session.launch(Operation.ALL_REDUCE, o.bytes());
        done++;
        if (done % o.syncEvery() == 0) {
          Cuda.check(cudaStreamSynchronize(session.stream), "cudaStreamSynchronize");
          /* Both ranks must stop after the same call: a rank that stopped alone would leave its peer's
             collective waiting forever. The deadline is checked at synchronisation points, in step. */
          if (done % (o.syncEvery() * 100L) == 0 && pastDeadline(session, deadline)) {
            break;
          }
        }
        if (done % every == 1 || every == 1) {
          memory.add(memorySample(done, t0, session, acc));
        }
      }
      Cuda.check(cudaStreamSynchronize(session.stream), "cudaStreamSynchronize");
      long runNanos = System.nanoTime() - t0;
      boolean complete = NcclSession.awaitRecords(session.inspector, reg, acc.heard::sum, done,
          Duration.ofSeconds(20));
      memory.add(memorySample(done, t0, session, acc));
      result.put("inspector", session.mode);
      result.put("bytes", o.bytes());
      result.put("callsPlanned", o.calls());
      result.put("calls", done);
      result.put("stoppedByTimeLimit", done < o.calls());
      result.put("syncEvery", o.syncEvery());
      result.put("runMillis", runNanos / 1_000_000);
      result.put("callsPerSecond", done / (runNanos / 1e9));
      result.put("memory", memory);
      if (session.inspector != null) {
        var counters = session.inspector.counters();
        long received = session.inspector.status().records().received();
        long nativeDrops = NcclSession.nativeDrops(counters);
        result.put("accountedFor", Map.of("recordsReceived", received, "droppedInNativeCore", nativeDrops,
            "sum", received + nativeDrops, "expected", done, "complete", complete,
            "listenerHeard", acc.heard.sum(), "listenerDropped", reg.dropped()));
        result.put("recordsByKind", acc.kinds());
        result.put("counters", counters);
        result.put("problems", session.inspector.status().problems());
        session.inspector.status().kernelRecords().ifPresent(k -> result.put("kernelRecords", k));
        if (o.latency()) {
          result.put("callbackToListenerLatency", acc.latencyPercentiles());
        }
      }
      writeResult(c, "stress", session.mode, result);
      if (c.rank() == 0) {
        out.printf("stress, %s, %d ranks: %,d calls in %.1f s (%.0f calls/s)%s%n", session.mode, c.ranks(), done,
            runNanos / 1e9, done / (runNanos / 1e9), done < o.calls() ? " (stopped by --max-seconds)" : "");
        if (session.inspector != null) {
          out.println("accounted for: " + result.get("accountedFor"));
          out.println("records by kind: " + result.get("recordsByKind"));
          out.println("drops: " + nonZero(session.inspector.counters().drops()) + ", notes: "
              + nonZero(session.inspector.counters().notes()));
          if (o.latency()) {
            out.println("callback-to-listener latency: " + result.get("callbackToListenerLatency"));
          }
        }
        out.println("memory: first " + memory.get(0) + "; last " + memory.get(memory.size() - 1));
      }
    }
  }

  /** Whether any rank is past its deadline (all ranks decide alike: they meet at the barrier and share the answer). */
  static boolean pastDeadline(NcclSession session, long deadline) {
    return session.barrier.anyFlag(System.nanoTime() > deadline);
  }

  static Map<String, Object> memorySample(long calls, long t0, NcclSession session, Accounting acc) throws IOException {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("calls", calls);
    m.put("elapsedMillis", (System.nanoTime() - t0) / 1_000_000);
    m.put("rssKiB", residentKiB());
    Runtime rt = Runtime.getRuntime();
    m.put("heapUsedKiB", (rt.totalMemory() - rt.freeMemory()) / 1024);
    if (session.inspector != null) {
      m.put("mallocInUseKiB", ProfilerTableDriver.mallocInUse() / 1024);
      m.put("records", acc.heard.sum());
      m.put("drops", session.inspector.counters().totalDrops());
    }
    return m;
  }

  // ---------------------------------------------------------------------------------- graph

  static void graph(Options o, Map<String, Object> result, PrintStream out) throws Exception {
    NcclSession.Common c = o.common();
    List<RecordView> all = Collections.synchronizedList(new ArrayList<>());
    try (NcclSession session = new NcclSession(c, o.bytes(),
        b -> b.dumpDirectory(c.out().resolve("inspector-graph")), false, out);
        CallTimer timer = session.timer()) {
      if (session.inspector != null) {
        session.inspector.addListener(new InspectorListener() {
          @Override
          public void operationCompleted(OperationRecord r) {
            all.add(RecordView.of(r));
          }
        });
      }
      CUgraph_st graph = new CUgraph_st();
      CUgraphExec_st exec = new CUgraphExec_st();
      Cuda.check(cudaStreamBeginCapture(session.stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
      for (int k = 0; k < o.graphOps(); k++) {
        session.launch(Operation.ALL_REDUCE, o.bytes());
      }
      Cuda.check(cudaStreamEndCapture(session.stream, graph), "cudaStreamEndCapture");
      Cuda.check(cudaGraphInstantiate(exec, graph, 0L), "cudaGraphInstantiate");
      List<CallTimer.Timing> timings = new ArrayList<>();
      try {
        for (int w = 0; w < 2; w++) {
          timer.untimed(() -> Cuda.check(cudaGraphLaunch(exec, session.stream), "cudaGraphLaunch"));
        }
        for (int r = 0; r < o.replays(); r++) {
          timings.add(timer.time(() -> Cuda.check(cudaGraphLaunch(exec, session.stream), "cudaGraphLaunch")));
        }
      } catch (RuntimeException | Error e) {
        session.barrier.abort();
        throw e;
      } finally {
        /* The graph holds NCCL's persistent work: free it before the communicator. */
        Cuda.check(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
        Cuda.check(cudaGraphDestroy(graph), "cudaGraphDestroy");
      }
      long expected = (long) o.graphOps() * (o.replays() + 2);
      boolean complete = session.awaitRecords(expected, Duration.ofSeconds(30));
      List<Cupti.Kernel> kernels = session.cupti != null ? session.cupti.drain() : null;
      ReferenceOutput reference = session.destroyCommunicator();
      List<Map<String, Object>> replays = graphReplays(o.graphOps(), 2, timings, new ArrayList<>(all), kernels, result);
      result.put("inspector", session.mode);
      result.put("bytes", o.bytes());
      result.put("graphOps", o.graphOps());
      result.put("replays", o.replays());
      result.put("warmupReplays", 2);
      result.put("cupti", kernels != null);
      if (session.inspector != null) {
        result.put("recordsExpected", expected);
        result.put("recordsReceived", session.recordsReceived());
        result.put("recordsComplete", complete);
        result.put("graphLaunchedRecords", all.stream().filter(r -> r.hasFlag("GRAPH_LAUNCHED")).count());
        result.put("counters", session.inspector.counters());
        result.put("problems", session.inspector.status().problems());
        session.inspector.status().kernelRecords().ifPresent(k -> result.put("kernelRecords", k));
      }
      if (session.mode.equals("reference")) {
        result.put("referenceRecords", reference.records().size());
        result.put("referenceGpuTimed", reference.records().stream().filter(ReferenceOutput.RefRecord::gpuTimed).count());
      }
      result.put("summary", graphSummary(o.graphOps(), replays));
      result.put("replayRows", replays);
      writeResult(c, "graph", session.mode, result);
      if (c.rank() == 0) {
        out.printf("graph, %s, %d ranks: %d ops x %d replays%s%n", session.mode, c.ranks(), o.graphOps(), o.replays(),
            session.inspector != null ? String.format(": %d records of %d expected, %s graph-launched, drops %d",
                session.recordsReceived(), expected, result.get("graphLaunchedRecords"),
                session.inspector.counters().totalDrops()) : "");
        if (session.mode.equals("reference")) {
          out.printf("reference wrote %d records (%s GPU-timed)%n", reference.records().size(),
              result.get("referenceGpuTimed"));
        }
        out.println("per operation of the graph: " + result.get("summary"));
      }
    }
  }

  /**
   * Per timed replay: its CUDA-event time, CUPTI's kernels in its window (k-th kernel = k-th
   * captured operation), and this inspector's records of it. Graph replays start their events from
   * a host callback, so their records carry no step tag: they are matched by the wall time of their
   * start event, which falls inside the replay's window. Should fewer than half of them match that
   * way, they are assigned in start order instead, {@code ops} per replay after the warm-up
   * replays' (the result says which way: "wall-window" or "order").
   */
  static List<Map<String, Object>> graphReplays(int ops, int warmupReplays, List<CallTimer.Timing> timings,
      List<RecordView> records, List<Cupti.Kernel> kernels, Map<String, Object> result) {
    List<KernelWindows.Window> windows = new ArrayList<>();
    for (int r = 0; r < timings.size(); r++) {
      windows.add(new KernelWindows.Window(r, timings.get(r).cuptiFromNanos(), timings.get(r).cuptiToNanos()));
    }
    KernelWindows.Assignment assignment = kernels == null ? null : KernelWindows.assign(windows, kernels);
    records.sort((a, b) -> Long.compare(a.startWallNanos(), b.startWallNanos()));
    List<List<RecordView>> byReplay = new ArrayList<>();
    int next = 0;
    int matched = 0;
    for (CallTimer.Timing t : timings) {
      while (next < records.size() && records.get(next).startWallNanos() < t.wallStartNanos()) {
        next++;
      }
      List<RecordView> mine = new ArrayList<>();
      while (next < records.size() && records.get(next).startWallNanos() <= t.wallEndNanos()) {
        mine.add(records.get(next++));
      }
      matched += mine.size();
      byReplay.add(mine);
    }
    String matchedBy = "wall-window";
    if (matched * 2L < (long) ops * timings.size()) {
      matchedBy = "order";
      byReplay.clear();
      for (int r = 0; r < timings.size(); r++) {
        int from = (warmupReplays + r) * ops;
        byReplay.add(from >= records.size() ? List.of()
            : new ArrayList<>(records.subList(from, Math.min(records.size(), from + ops))));
      }
    }
    if (result != null) {
      result.put("recordsMatchedBy", matchedBy);
      result.put("recordsInReplayWindows", matched);
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    for (int r = 0; r < timings.size(); r++) {
      List<RecordView> mine = byReplay.get(r);
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("replay", r);
      row.put("cudaEventMicros", timings.get(r).cudaEventNanos() / 1e3);
      if (assignment != null) {
        row.put("cuptiMicros", assignment.of(r).kernels().stream().map(k -> k.durationNanos() / 1e3).toList());
      }
      row.put("records", mine.size());
      /* a withheld record has no time here (null), never a 0 */
      List<Double> micros = new ArrayList<>();
      mine.forEach(v -> micros.add(v.reported() ? v.executionNanos() / 1e3 : null));
      row.put("inspectorMicros", micros);
      row.put("graphLaunched", mine.stream().filter(v -> v.hasFlag("GRAPH_LAUNCHED")).count());
      row.put("withheld", mine.stream().filter(v -> !v.reported()).count());
      rows.add(row);
    }
    return rows;
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> graphSummary(int ops, List<Map<String, Object>> replays) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (int k = 0; k < ops; k++) {
      List<Double> cupti = new ArrayList<>();
      List<Double> ours = new ArrayList<>();
      List<Double> diff = new ArrayList<>();
      for (Map<String, Object> r : replays) {
        List<Double> cu = (List<Double>) r.get("cuptiMicros");
        List<Double> in = (List<Double>) r.get("inspectorMicros");
        Double a = cu != null && cu.size() == ops ? cu.get(k) : null;
        Double b = in.size() == ops ? in.get(k) : null;
        if (a != null) {
          cupti.add(a);
        }
        if (b != null) {
          ours.add(b);
        }
        if (a != null && b != null) {
          diff.add(a - b);
        }
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("op", k);
      m.put("cuptiMedianMicros", CallReport.median(cupti));
      m.put("inspectorMedianMicros", CallReport.median(ours));
      m.put("inspectorTimed", ours.size());
      m.put("cuptiMinusInspectorMedianMicros", CallReport.median(diff));
      out.add(m);
    }
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("op", "replay");
    all.put("cudaEventMedianMicros", CallReport.median(replays.stream().map(r -> (Double) r.get("cudaEventMicros")).toList()));
    all.put("replaysWithOneRecordPerOp", replays.stream().filter(r -> ((Integer) r.get("records")) == ops).count());
    all.put("replays", replays.size());
    out.add(all);
    return out;
  }

  // ---------------------------------------------------------------------------------- detector

  static void detector(Options o, Map<String, Object> result, PrintStream out) throws Exception {
    NcclSession.Common c = o.common();
    long buffer = Math.max(o.loopBytes(), o.secondBytes());
    try (NcclSession session = new NcclSession(c, buffer, b -> b, true, out);
        CallTimer timer = new CallTimer(session.stream, null, session.cupti)) {
      CallCounter counter = new CallCounter(c.ranks());
      List<CallReport.CallSample> samples = new ArrayList<>();
      List<KernelWindows.Window> windows = new ArrayList<>();
      List<Map<String, Object>> planted = new ArrayList<>();
      long t0 = System.nanoTime();
      try {
        session.barrier.await();
        loop(o, session, timer, counter, samples, windows, planted, "loop", o.loopCalls(), o.loopBytes(), session.comm,
            session.stream);
        loop(o, session, timer, counter, samples, windows, planted, "size-change", o.secondCalls(), o.secondBytes(),
            session.comm, session.stream);
      } catch (RuntimeException | Error e) {
        session.barrier.abort();
        throw e;
      }
      /* A second communicator with another protocol: NCCL reads NCCL_PROTO / NCCL_ALGO from the process
         environment at each communicator's creation; Java cannot set it, the inspector's native core can. */
      NativeCore core = NativeCore.get();
      core.setenv("NCCL_PROTO", o.proto());
      if (!o.algo().isEmpty()) {
        core.setenv("NCCL_ALGO", o.algo());
      }
      Path idB = c.idFile().resolveSibling(c.idFile().getFileName() + "-proto");
      ncclComm commB = new ncclComm();
      CUstream_st streamB = new CUstream_st();
      Cuda.check(cudaStreamCreate(streamB), "cudaStreamCreate");
      Cuda.nccl(ncclCommInitRank(commB, c.ranks(), Rendezvous.meet(c.rank(), idB), c.rank()), "ncclCommInitRank (second)");
      CallCounter counterB = new CallCounter(c.ranks());
      try (CallTimer timerB = new CallTimer(streamB, null, session.cupti)) {
        session.barrier.await();
        loop(o, session, timerB, counterB, samples, windows, planted, "protocol-change", o.protoCalls(), o.loopBytes(),
            commB, streamB);
      } catch (RuntimeException | Error e) {
        session.barrier.abort();
        throw e;
      }
      long runMillis = (System.nanoTime() - t0) / 1_000_000;
      long expected = counter.expectedRecords() + counterB.expectedRecords();
      boolean complete = session.awaitRecords(expected, Duration.ofSeconds(30));
      KernelWindows.Assignment kernels = session.cupti != null
          ? KernelWindows.assign(windows, session.cupti.drain()) : null;
      Cuda.nccl(ncclCommDestroy(commB), "ncclCommDestroy (second)");
      cudaStreamDestroy(streamB);
      ReferenceOutput reference = session.destroyCommunicator();
      List<CallReport.CallRow> rows = CallReport.join("detector", session.mode, c.rank(), samples,
          session.inspector != null ? session.recordsByStep() : null, null, kernels, CallReport.Tolerance.DEFAULT);
      CallReport.writeJsonLines(c.out().resolve("calls-detector-" + session.mode + "-rank" + c.rank() + ".jsonl"), rows);
      result.put("inspector", session.mode);
      result.put("runMillis", runMillis);
      result.put("options", Map.of("loopCalls", o.loopCalls(), "loopBytes", o.loopBytes(), "secondCalls",
          o.secondCalls(), "secondBytes", o.secondBytes(), "protoCalls", o.protoCalls(), "proto", o.proto(), "algo",
          o.algo(), "delayMicros", o.delayMicros(), "delayRank", o.delayRank()));
      result.put("planted", planted);
      result.put("protocols", rows.stream().flatMap(r -> r.ours().records().stream())
          .map(x -> ((RecordView) x).algorithm() + "/" + ((RecordView) x).protocol() + " " + ((RecordView) x).messageBytes())
          .collect(java.util.stream.Collectors.groupingBy(s -> s, TreeMap::new, java.util.stream.Collectors.counting())));
      if (session.inspector != null) {
        result.put("recordsExpected", expected);
        result.put("recordsReceived", session.recordsReceived());
        result.put("recordsComplete", complete);
        result.put("counters", session.inspector.counters());
        result.put("traceFile", session.inspector.status().recording().map(rec -> rec.file()).map(Path::toString).orElse(""));
      }
      result.put("referenceRecords", reference.records().size());
      writeResult(c, "detector", session.mode, result);
      if (c.rank() == 0) {
        out.printf("detector, %s: %d calls in %d ms; records %d of %d; protocols %s%n", session.mode,
            counter.calls() + counterB.calls(), runMillis, session.recordsReceived(), expected, result.get("protocols"));
        out.println(CallReport.table(rows));
        for (Map<String, Object> p : planted) {
          long call = (Long) p.get("call");
          String part = (String) p.get("part");
          rows.stream().filter(r -> r.call() == call && r.label().equals(part)).findFirst().ifPresent(r ->
              out.printf(Locale.ROOT, "planted %s call %d: event %.1f us, inspector %s%n", part, call,
                  r.cudaEventMicros(), r.ours().micros()));
        }
      }
    }
  }

  private static void loop(Options o, NcclSession session, CallTimer timer, CallCounter counter,
      List<CallReport.CallSample> samples, List<KernelWindows.Window> windows, List<Map<String, Object>> planted,
      String part, int calls, long bytes, ncclComm comm, CUstream_st stream) {
    NcclSession.Common c = o.common();
    for (int i = 0; i < calls; i++) {
      CallCounter.CallId id = counter.next(Operation.ALL_REDUCE);
      /* Step tags must not repeat across the two communicators: the second one's start at 1,000,000. */
      long step = comm == session.comm ? id.call() : 1_000_000 + id.call();
      session.step(step);
      boolean delay = o.delayCalls().contains((long) i);
      CallTimer.Timing t = timer.time(() -> {
        if (delay && c.rank() == o.delayRank()) {
          long until = System.nanoTime() + o.delayMicros() * 1000;
          while (System.nanoTime() < until) {
            Thread.onSpinWait();
          }
        }
        Operation.ALL_REDUCE.launch(session.buffers, bytes, c.ranks(), c.rank(), comm, stream);
        NonBlocking.await(comm, "ncclAllReduce", 60);
      });
      CallCounter.CallId tagged = new CallCounter.CallId(step, id.operation(), id.collSequence(), id.p2pFirstSn(),
          id.p2pCount(), id.afterSelfP2p());
      samples.add(new CallReport.CallSample(tagged, part, bytes, i, t));
      windows.add(new KernelWindows.Window(step, t.cuptiFromNanos(), t.cuptiToNanos()));
      if (delay) {
        planted.add(Map.of("part", part, "call", step, "index", (long) i, "delayMicros", o.delayMicros(),
            "delayedRank", o.delayRank()));
      }
    }
  }

  // ---------------------------------------------------------------------------------- common

  static void writeResult(NcclSession.Common c, String mode, String inspectorMode, Map<String, Object> result)
      throws IOException {
    Files.createDirectories(c.out());
    JSON.writeValue(c.out().resolve("longrun-" + mode + "-" + inspectorMode + "-rank" + c.rank() + ".json").toFile(),
        result);
  }

  static String[] concat(String[] a, String... b) {
    String[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static Map<String, Long> nonZero(Map<String, Long> m) {
    Map<String, Long> out = new TreeMap<>();
    m.forEach((k, v) -> {
      if (v > 0) {
        out.put(k, v);
      }
    });
    return out;
  }

  /** VmRSS of this process, from /proc/self/status. */
  static long residentKiB() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }
}
