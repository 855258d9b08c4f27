package io.ncclinspector.examples.nccl;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.InspectorSnapshot;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.prometheus.PrometheusTextfile;
import io.ncclinspector.prometheus.TextfileExporter;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * An NCCL benchmark in Java through the JavaCPP CUDA presets, with the inspector enabled in
 * process: AllReduce, AllGather, ReduceScatter, Broadcast, AlltoAll and Send/Recv over a range of
 * sizes. Each timed call runs alone: the ranks meet at a barrier ({@code --no-sync}: they don't),
 * a CUDA-event pair brackets the call, and with {@code --cupti} CUPTI measures its kernel. The
 * inspector's record of the same call is found by its step tag ({@code inspector.step(call)}),
 * the reference Inspector's (mode reference) by NCCL's sequence number; see {@link CallReport}
 * for how their figures are judged. With {@code --batch N} every size ends with N back-to-back
 * calls between one event pair, the nccl-tests way of measuring bus bandwidth.
 *
 * <p>The operations list may repeat operations ({@code --ops AllReduce,AlltoAll,AllReduce}): each
 * entry is a pass over all sizes, and calls after the first AlltoAll are in phase "after".
 *
 * <p>One process per rank. Ranks meet through a file holding NCCL's unique id (written by rank 0).
 * Launch with {@code examples/nccl-benchmark.sh}. {@code --dry-run} prints the plan only.
 *
 * <pre>
 * java ... NcclBenchmark --rank R --ranks N --id-file F --out DIR [--inspector on|off] [--cupti] [--no-sync]
 *     [--ops AllReduce,AllGather,...] [--min-bytes 8K] [--max-bytes 32M] [--factor 4]
 *     [--warmup 5] [--iters 20] [--batch 0] [--run bench] [--per-call] [--dry-run]
 * </pre>
 */
public final class NcclBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** One row of the bandwidth table: one pass over one operation at one size. */
  record SweepRow(int pass, String phase, String operation, long sizeBytes, int calls, double cudaEventMicros,
      double enqueueMicros, double wallMicros, double busBandwidthEventGbs, Integer batchCalls,
      Double batchMicrosPerCall, Double busBandwidthBatchGbs, Double cuptiMicros, int inspectorReported,
      int inspectorWithheld, Double inspectorMicros, Double inspectorBusBandwidthGbs) {}

  record Options(NcclSession.Common common, String run, List<Operation> ops, long minBytes, long maxBytes, int factor,
      int warmup, int iters, int batch, boolean perCall, CallReport.Tolerance tolerance) {

    static Options parse(String[] argv) {
      Args a = Args.parse(argv, NcclLongRun.concat(NcclSession.COMMON_FLAGS, "per-call"));
      NcclSession.Common c = NcclSession.Common.parse(a);
      List<Operation> ops = new ArrayList<>();
      for (String s : a.string("ops", "AllReduce,AllGather,ReduceScatter,Broadcast,AlltoAll,SendRecv").split(",")) {
        ops.add(Operation.byName(s.trim()));
      }
      Options o = new Options(c, a.string("run", "bench"), ops, a.longValue("min-bytes", 8192),
          a.longValue("max-bytes", 32L << 20), a.integer("factor", 4), a.integer("warmup", 5), a.integer("iters", 20),
          a.integer("batch", 0), a.flag("per-call"), new CallReport.Tolerance(a.decimal("tolerance-us", 6),
              a.decimal("tolerance-pct", 5) / 100, a.decimal("tolerance-event-us", 40)));
      a.rejectUnknown();
      Sizes.geometric(o.minBytes, o.maxBytes, o.factor); /* validates the range */
      if (o.iters < 1 || o.warmup < 0 || o.batch < 0) {
        throw new IllegalArgumentException("need --iters >= 1, --warmup >= 0, --batch >= 0");
      }
      return o;
    }

    List<Long> sizes() {
      return Sizes.geometric(minBytes, maxBytes, factor);
    }

    long calls() {
      return (long) ops.size() * sizes().size() * (warmup + iters + batch);
    }
  }

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    PrintStream out = System.out;
    if (o.common().rank() == 0 || o.common().dryRun()) {
      CallCounter counter = new CallCounter(o.common().ranks());
      for (Operation op : o.ops()) {
        for (long s : o.sizes()) {
          for (int i = 0; i < o.warmup() + o.iters() + o.batch(); i++) {
            counter.next(op);
          }
        }
      }
      out.printf("plan %s: passes %s, sizes %s .. %s (%d), %d warm-up + %d timed + %d batched calls each: %d calls, "
          + "%d records expected with the inspector on, buffers 2 x %s%n", o.run(),
          o.ops().stream().map(x -> x.name).toList(), Sizes.label(o.minBytes()), Sizes.label(o.maxBytes()),
          o.sizes().size(), o.warmup(), o.iters(), o.batch(), counter.calls(), counter.expectedRecords(),
          Sizes.label(o.maxBytes()));
    }
    if (o.common().dryRun()) {
      return;
    }
    run(o, out);
  }

  static void run(Options o, PrintStream out) throws Exception {
    NcclSession.Common c = o.common();
    LiveTable live = new LiveTable();
    try (NcclSession session = new NcclSession(c, o.maxBytes(), b -> b.exporter(
        PrometheusTextfile.every(Duration.ofSeconds(30)).withRemoveFilesOnClose(false)), true, out);
        CallTimer timer = session.timer()) {
      Thread printer = null;
      if (session.inspector != null) {
        session.inspector.addListener(new InspectorListener() {
          @Override
          public void operationCompleted(OperationRecord r) {
            live.add(r);
          }
        });
        if (c.rank() == 0) {
          printer = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
              try {
                Thread.sleep(2000);
              } catch (InterruptedException e) {
                return;
              }
              out.println(live.render());
            }
          }, "live-table");
          printer.setDaemon(true);
          printer.start();
        }
      }
      CallCounter counter = new CallCounter(c.ranks());
      List<CallReport.CallSample> samples = new ArrayList<>();
      List<KernelWindows.Window> windows = new ArrayList<>();
      Map<String, CallTimer.Timing> batches = new LinkedHashMap<>();
      long runStart = System.nanoTime();
      try {
        for (int pass = 0; pass < o.ops().size(); pass++) {
          Operation op = o.ops().get(pass);
          for (long size : o.sizes()) {
            for (int w = 0; w < o.warmup(); w++) {
              CallCounter.CallId id = counter.next(op);
              session.step(id.call());
              timer.untimed(() -> session.launch(op, size));
            }
            for (int i = 0; i < o.iters(); i++) {
              CallCounter.CallId id = counter.next(op);
              session.step(id.call());
              CallTimer.Timing t = timer.time(() -> session.launch(op, size));
              samples.add(new CallReport.CallSample(id, "pass" + pass, size, i, t));
              windows.add(new KernelWindows.Window(id.call(), t.cuptiFromNanos(), t.cuptiToNanos()));
            }
            if (o.batch() > 0) {
              CallTimer.Timing t = timer.batch(o.batch(), () -> {
                CallCounter.CallId id = counter.next(op);
                session.step(id.call());
                session.launch(op, size);
              });
              batches.put(pass + "/" + size, t);
            }
          }
        }
      } catch (RuntimeException | Error e) {
        session.barrier.abort();
        throw e;
      }
      long runNanos = System.nanoTime() - runStart;
      if (printer != null) {
        printer.interrupt();
      }
      long expected = counter.expectedRecords();
      boolean complete = session.awaitRecords(expected, Duration.ofSeconds(30));
      KernelWindows.Assignment kernels = session.cupti != null
          ? KernelWindows.assign(windows, session.cupti.drain()) : null;
      Map<String, Object> result = new LinkedHashMap<>();
      InspectorSnapshot snap = null;
      if (session.inspector != null) {
        snap = session.inspector.snapshot();
        session.inspector.flush();
        result.put("counters", snap.counters());
        result.put("nccl", session.inspector.status().nccl());
        result.put("problems", session.inspector.status().problems());
        result.put("prometheusFiles", session.inspector.exporter(TextfileExporter.class).map(TextfileExporter::files).orElse(java.util.Set.of()).stream().map(Path::toString).sorted().toList());
        result.put("outputFile", session.inspector.status().output().map(io.ncclinspector.InspectorStatus.Output::file).map(Path::toString).orElse(""));
        result.put("traceFile", session.inspector.status().recording().map(rec -> rec.file()).map(Path::toString).orElse(""));
      }
      ReferenceOutput reference = session.destroyCommunicator();
      List<CallReport.CallRow> rows = CallReport.join(o.run(), session.mode, c.rank(), samples,
          session.inspector != null ? session.recordsByStep() : null,
          session.mode.equals("reference") ? reference : null, kernels, o.tolerance());
      List<SweepRow> sweep = sweepRows(o, rows, batches);
      result.put("program", "NcclBenchmark");
      result.put("run", o.run());
      result.put("mode", session.mode);
      result.put("rank", c.rank());
      result.put("ranks", c.ranks());
      result.put("ncclVersion", session.ncclVersion);
      result.put("syncRanks", c.syncRanks());
      result.put("cupti", session.cupti != null);
      result.put("runMillis", runNanos / 1_000_000);
      result.put("calls", counter.calls());
      result.put("recordsExpected", session.inspector != null ? expected : 0);
      result.put("recordsReceived", session.recordsReceived());
      result.put("recordsComplete", complete);
      if (kernels != null) {
        result.put("cuptiKernelsOutsideWindows", kernels.unattributed());
        result.put("cuptiDropped", session.cupti.dropped());
      }
      if (session.mode.equals("reference")) {
        result.put("referenceRecords", reference.records().size());
        result.put("referenceFiles", reference.files().stream().map(Path::toString).toList());
      }
      result.put("rows", sweep);
      String stem = session.mode + "-rank" + c.rank();
      JSON.writeValue(c.out().resolve("results-" + stem + ".json").toFile(), result);
      CallReport.writeJsonLines(c.out().resolve("calls-" + o.run() + "-" + stem + ".jsonl"), rows);

      if (c.rank() == 0) {
        out.printf("%nrank 0, %s: %d calls in %.1f s; records %d of %d expected%s%n", session.mode, counter.calls(),
            runNanos / 1e9, session.recordsReceived(), session.inspector != null ? expected : 0,
            session.inspector != null ? ", drops " + snap.counters().totalDrops() + " " + nonZero(snap.counters().drops())
                + ", quarantined " + nonZero(byName(snap.counters().quarantined())) : "");
        if (o.perCall()) {
          out.println(CallReport.perCall(rows));
        }
        out.println(sweepTable(sweep));
        out.println(CallReport.table(rows));
        out.println(CallReport.summary(rows));
      }
    }
  }

  static List<SweepRow> sweepRows(Options o, List<CallReport.CallRow> rows, Map<String, CallTimer.Timing> batches) {
    Map<String, List<CallReport.CallRow>> groups = new LinkedHashMap<>();
    for (CallReport.CallRow r : rows) {
      groups.computeIfAbsent(r.label() + "/" + r.bytes(), k -> new ArrayList<>()).add(r);
    }
    int n = o.common().ranks();
    List<SweepRow> out = new ArrayList<>();
    for (Map.Entry<String, List<CallReport.CallRow>> e : groups.entrySet()) {
      List<CallReport.CallRow> g = e.getValue();
      CallReport.CallRow f = g.get(0);
      int pass = Integer.parseInt(f.label().substring("pass".length()));
      Operation op = Operation.byName(f.operation());
      double event = CallReport.median(g.stream().map(CallReport.CallRow::cudaEventMicros).toList());
      CallTimer.Timing batch = batches.get(pass + "/" + f.bytes());
      Double batchPer = batch == null ? null : batch.cudaEventNanos() / 1e3 / o.batch();
      List<RecordView> reported = new ArrayList<>();
      int withheld = 0;
      for (CallReport.CallRow r : g) {
        for (Object x : r.ours().records()) {
          RecordView v = (RecordView) x;
          boolean mine = op == Operation.ALL_TO_ALL || op == Operation.SEND_RECV
              ? v.isP2p() && !v.selfP2p() && v.peer() != o.common().rank() && (op != Operation.SEND_RECV
                  || v.operation().equals("Send"))
              : v.operation().equals(op.name);
          if (!mine) {
            continue;
          }
          if (v.reported()) {
            reported.add(v);
          } else {
            withheld++;
          }
        }
      }
      out.add(new SweepRow(pass, f.phase(), f.operation(), f.bytes(), g.size(), event,
          CallReport.median(g.stream().map(CallReport.CallRow::enqueueMicros).toList()),
          CallReport.median(g.stream().map(CallReport.CallRow::wallMicros).toList()),
          busBandwidth(f.bytes(), event, op, n), batch == null ? null : o.batch(), batchPer,
          batchPer == null ? null : busBandwidth(f.bytes(), batchPer, op, n),
          CallReport.median(g.stream().map(CallReport.CallRow::cuptiMicros).toList()), reported.size(), withheld,
          CallReport.median(reported.stream().map(v -> v.executionNanos() / 1e3).toList()),
          CallReport.median(reported.stream().map(RecordView::busBandwidthGbs).toList())));
    }
    return out;
  }

  /** nccl-tests' bus bandwidth in GB/s of {@code bytes} moved in {@code micros}. */
  static double busBandwidth(long bytes, double micros, Operation op, int ranks) {
    return micros > 0 ? bytes / (micros * 1e3) * op.busFactor(ranks) : 0;
  }

  static String sweepTable(List<SweepRow> rows) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "%-4s %-6s %-13s %9s %5s %10s %10s %10s %10s %10s %11s %10s %10s%n", "pass",
        "phase", "operation", "size", "calls", "event_us", "cupti_us", "insp_us", "batch_us", "busbw_ev", "busbw_batch",
        "busbw_in", "insp_held"));
    for (SweepRow r : rows) {
      b.append(String.format(Locale.ROOT, "%-4d %-6s %-13s %9s %5d %10.1f %10s %10s %10s %10.3f %11s %10s %10d%n",
          r.pass(), r.phase(), r.operation(), Sizes.label(r.sizeBytes()), r.calls(), r.cudaEventMicros(),
          fmt(r.cuptiMicros(), 1), fmt(r.inspectorMicros(), 1), fmt(r.batchMicrosPerCall(), 1),
          r.busBandwidthEventGbs(), fmt(r.busBandwidthBatchGbs(), 3), fmt(r.inspectorBusBandwidthGbs(), 3),
          r.inspectorWithheld()));
    }
    return b.toString();
  }

  private static String fmt(Double v, int decimals) {
    return v == null ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", v);
  }

  private static Map<String, Long> byName(Map<io.ncclinspector.Quarantine, Long> m) {
    Map<String, Long> out = new java.util.TreeMap<>();
    m.forEach((q, n) -> out.put(q.jsonName(), n));
    return out;
  }

  private static Map<String, Long> nonZero(Map<String, Long> m) {
    Map<String, Long> out = new HashMap<>();
    m.forEach((k, v) -> {
      if (v > 0) {
        out.put(k, v);
      }
    });
    return out;
  }

  /**
   * What the listener has seen so far, by operation and size: a live view for the console. Only
   * records with a reported time enter the mean; quarantined and untimed ones are counted apart.
   */
  static final class LiveTable {
    private final Map<String, LongAdder[]> cells = new ConcurrentHashMap<>();

    void add(OperationRecord r) {
      LongAdder[] c = cells.computeIfAbsent(r.operation() + " " + r.transfer().messageBytes(),
          k -> new LongAdder[] {new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder()});
      boolean reported = r.timing().trusted();
      if (!reported) {
        c[3].increment();
        return;
      }
      c[0].increment();
      c[1].add(r.timing().executionNanos());
      c[2].add(Math.round(r.transfer().busBandwidthGbs() * 1000));
    }

    String render() {
      StringBuilder b = new StringBuilder("live (listener):");
      cells.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
        long n = e.getValue()[0].sum();
        long held = e.getValue()[3].sum();
        b.append(n == 0 ? String.format(Locale.ROOT, " | %s none timed", e.getKey())
            : String.format(Locale.ROOT, " | %s n=%d %.0fus %.3fGB/s", e.getKey(), n, e.getValue()[1].sum() / 1e3 / n,
                e.getValue()[2].sum() / 1e3 / n));
        if (held > 0) {
          b.append(" withheld=").append(held);
        }
      });
      return b.toString();
    }
  }
}
