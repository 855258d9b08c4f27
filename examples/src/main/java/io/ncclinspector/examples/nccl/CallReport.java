package io.ncclinspector.examples.nccl;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Joins every timed call with what each clock says about it and judges the profilers' figures:
 * the CUDA-event time around the call, CUPTI's duration of its kernel(s), this inspector's records
 * of the call (matched by step tag = call number) and the reference Inspector's (matched by NCCL's
 * sequence number, or for point-to-point work by start time or the reference's own numbering).
 *
 * <p>A profiler's figure for a call is judged against CUPTI where CUPTI ran, else against the
 * CUDA events (which also contain the host's enqueue and launch time: a looser check):
 * <ul>
 *   <li>{@code ok}: a collective's GPU time within {@code [truth - tolerance, truth + 1 µs]} (the
 *       channels' timestamps miss the kernel's start-up and tail: 2.8–3.6 µs on H200); a
 *       point-to-point call's time (its Send/Recv records, the own rank's left out) no longer than
 *       the kernel: NCCL stops P2P channels at the send side, so their times are lower bounds;
 *   <li>{@code bound}: a collective's time that its record marks a lower bound
 *       ({@code DESYNC_CHANNELS_EXCLUDED}: from its in-step channels only, the others left out), below
 *       that window but not above it: the channels left out may have run longer, so a short lower bound
 *       is what the record says, not a wrong time (GroundTruthTest's rule);
 *   <li>{@code wrong}: outside that;
 *   <li>{@code withheld}: the profiler has the record but gives no time or quarantines it;
 *   <li>{@code cpu}: timed by CPU callbacks, not GPU timestamps (not compared);
 *   <li>{@code missing}: no record of the call; {@code unchecked}: no clock to compare with.
 * </ul>
 * Medians in the tables are over the figures a profiler reports; withheld records are counted,
 * never averaged in as zero.
 */
final class CallReport {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The flag of a record timed by some of its channels only: its time is a lower bound. */
  static final String LOWER_BOUND_FLAG = "DESYNC_CHANNELS_EXCLUDED";

  /** One timed call as measured. {@code label} names the part of the program (cycle, moe, sweep, ...). */
  record CallSample(CallCounter.CallId id, String label, long bytes, int iteration, CallTimer.Timing timing) {}

  /**
   * How far a profiler's time may fall below the truth: {@code micros + fraction * truth}; for
   * CUDA-event truth {@code eventMicros + fraction * truth}.
   */
  record Tolerance(double micros, double fraction, double eventMicros) {
    static final Tolerance DEFAULT = new Tolerance(6, 0.05, 40);
    static final double ABOVE_MICROS = 1.0;

    double below(double truthMicros, boolean cupti) {
      return (cupti ? micros : eventMicros) + fraction * truthMicros;
    }
  }

  /** One profiler's judged figure for a call; {@code records} are that profiler's records of it. */
  record Judged(String verdict, Double micros, String detail, List<?> records) {}

  /** A row of the per-call output ({@code calls-*.jsonl}). */
  record CallRow(String run, String mode, int rank, long call, String label, String phase, String operation,
      long bytes, int iteration, long collSequence, double cudaEventMicros, double enqueueMicros, double wallMicros,
      long wallStartNanos, Integer cuptiKernels, Double cuptiMicros, Double cuptiSpanMicros, String kernel,
      String truth, Judged ours, Judged reference) {}

  private CallReport() {}

  /**
   * @param ours this inspector's records by step tag, null when it was off
   * @param reference the reference's output, null when it was not loaded
   * @param kernels CUPTI's kernels by call, null without CUPTI
   */
  static List<CallRow> join(String run, String mode, int rank, List<CallSample> samples,
      Map<Long, List<RecordView>> ours, ReferenceOutput reference, KernelWindows.Assignment kernels, Tolerance tol) {
    List<CallRow> rows = new ArrayList<>();
    for (CallSample s : samples) {
      CallCounter.CallId id = s.id();
      Operation op = id.operation();
      CallTimer.Timing t = s.timing();
      double event = t.cudaEventNanos() / 1e3;
      Integer nk = null;
      Double busy = null;
      Double span = null;
      String kernel = null;
      if (kernels != null) {
        KernelWindows.CallKernels ck = kernels.of(id.call());
        nk = ck.count();
        if (ck.count() > 0) {
          busy = ck.busyNanos() / 1e3;
          span = ck.spanNanos() / 1e3;
          kernel = ck.firstName();
        }
      }
      boolean cuptiTruth = busy != null;
      double truth = cuptiTruth ? busy : event;
      Judged j1 = ours == null ? new Judged("off", null, null, List.of())
          : judgeOurs(op, rank, ours.getOrDefault(id.call(), List.of()), truth, cuptiTruth, tol);
      Judged j2;
      if (reference == null) {
        j2 = new Judged("off", null, null, List.of());
      } else if (op.collective && op != Operation.ALL_TO_ALL) {
        /* A grouped call's operations share one kernel: the longest of them is its time. */
        ReferenceOutput.RefRecord r = null;
        for (int k = 0; k < op.calls(); k++) {
          ReferenceOutput.RefRecord x = reference.collective(op.recordName(), id.collSequence() + k);
          if (x == null) {
            r = null;
            break;
          }
          r = r == null || x.execMicros() > r.execMicros() ? x : r;
        }
        j2 = judgeReferenceCollective(r, truth, cuptiTruth, tol);
      } else {
        List<ReferenceOutput.RefRecord> rs = reference.p2p(id.p2pFirstSn(), id.p2pCount(), t.wallStartNanos(),
            t.wallEndNanos());
        j2 = judgeReferenceP2p(rs, rank, truth);
      }
      rows.add(new CallRow(run, mode, rank, id.call(), s.label(), id.afterSelfP2p() ? "after" : "before", op.name,
          s.bytes(), s.iteration(), id.collSequence(), event, t.enqueueNanos() / 1e3, t.wallNanos() / 1e3,
          t.wallStartNanos(), nk, busy, span, kernel, cuptiTruth ? "cupti" : "cuda_event", j1, j2));
    }
    return rows;
  }

  static Judged judgeOurs(Operation op, int rank, List<RecordView> recs, double truth, boolean cuptiTruth,
      Tolerance tol) {
    if (op.collective && op != Operation.ALL_TO_ALL) {
      /* A grouped call's operations (two broadcasts) share one kernel: the longest of them is its
         time, and one missing or withheld makes the call so. */
      List<RecordView> mine = recs.stream().filter(x -> x.operation().equals(op.recordName())).toList();
      if (mine.size() < op.calls()) {
        return new Judged("missing", null, null, recs);
      }
      RecordView r = mine.stream().filter(x -> !x.reported()).findFirst()
          .orElse(mine.stream().max(java.util.Comparator.comparingLong(RecordView::executionNanos)).orElseThrow());
      String detail = detail(r);
      if (!r.reported()) {
        return new Judged("withheld", null, detail, recs);
      }
      double us = r.executionNanos() / 1e3;
      if (!r.gpuTimed()) {
        return new Judged("cpu", us, detail, recs);
      }
      String verdict = collectiveVerdict(us, truth, cuptiTruth, tol, 0);
      if (verdict.equals("wrong") && r.hasFlag(LOWER_BOUND_FLAG) && us <= truth + Tolerance.ABOVE_MICROS) {
        verdict = "bound";
      }
      return new Judged(verdict, us, detail, recs);
    }
    List<RecordView> peerRecs = recs.stream().filter(x -> x.isP2p() && !x.selfP2p() && x.peer() != rank).toList();
    if (peerRecs.isEmpty()) {
      return new Judged("missing", null, null, recs);
    }
    long withheld = peerRecs.stream().filter(x -> !x.reported()).count();
    String detail = withheld + "/" + peerRecs.size() + " withheld"
        + (peerRecs.stream().anyMatch(x -> x.hasFlag("SEND_SIDE_STOP")) ? ", send-side stop" : "");
    List<RecordView> gpu = peerRecs.stream().filter(RecordView::gpuTimed).toList();
    if (gpu.isEmpty()) {
      return peerRecs.stream().anyMatch(RecordView::reported)
          ? new Judged("cpu", peerRecs.stream().filter(RecordView::reported).mapToLong(RecordView::executionNanos)
              .max().orElse(0) / 1e3, detail, recs)
          : new Judged("withheld", null, detail, recs);
    }
    double us = gpu.stream().mapToLong(RecordView::executionNanos).max().orElse(0) / 1e3;
    return new Judged(us <= truth + Tolerance.ABOVE_MICROS ? "ok" : "wrong", us, detail, recs);
  }

  static Judged judgeReferenceCollective(ReferenceOutput.RefRecord r, double truth, boolean cuptiTruth,
      Tolerance tol) {
    if (r == null) {
      return new Judged("missing", null, null, List.of());
    }
    double us = r.execMicros();
    if (!r.gpuTimed()) {
      return new Judged("cpu", us, r.timingSource(), List.of(r));
    }
    /* The reference writes whole microseconds (truncated): allow one more below. */
    return new Judged(collectiveVerdict(us, truth, cuptiTruth, tol, 1.0), us, r.timingSource(), List.of(r));
  }

  static Judged judgeReferenceP2p(List<ReferenceOutput.RefRecord> rs, int rank, double truth) {
    List<ReferenceOutput.RefRecord> peer = rs.stream().filter(r -> r.peer() != rank).toList();
    if (peer.isEmpty()) {
      return new Judged("missing", null, null, rs);
    }
    List<ReferenceOutput.RefRecord> gpu = peer.stream().filter(ReferenceOutput.RefRecord::gpuTimed).toList();
    if (gpu.isEmpty()) {
      return new Judged("cpu", (double) peer.stream().mapToLong(ReferenceOutput.RefRecord::execMicros).max().orElse(0),
          "no GPU time", rs);
    }
    double us = gpu.stream().mapToLong(ReferenceOutput.RefRecord::execMicros).max().orElse(0);
    return new Judged(us <= truth + Tolerance.ABOVE_MICROS + 1 ? "ok" : "wrong", us, null, rs);
  }

  private static String collectiveVerdict(double us, double truth, boolean cuptiTruth, Tolerance tol, double extra) {
    double diff = truth - us;
    return diff >= -(Tolerance.ABOVE_MICROS + extra) && diff <= tol.below(truth, cuptiTruth) + extra ? "ok" : "wrong";
  }

  private static String detail(RecordView r) {
    List<String> parts = new ArrayList<>();
    if (r.quarantined()) {
      parts.add(r.quarantine());
    }
    if (!"KERNEL_GPU".equals(r.timingSource())) {
      parts.add(r.timingSource());
    }
    for (String f : r.flags()) {
      if (!f.equals("QUARANTINED")) {
        parts.add(f);
      }
    }
    if (r.desyncedChannels() > 0) {
      parts.add(r.desyncedChannels() + "/" + r.channelsSeen() + " channels desynced");
    }
    return parts.isEmpty() ? null : String.join(" ", parts);
  }

  static void writeJsonLines(Path file, List<CallRow> rows) throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(file)) {
      for (CallRow r : rows) {
        w.write(JSON.writeValueAsString(r));
        w.newLine();
      }
    }
  }

  /** Medians and verdict counts per (phase, operation, size), in order of first appearance. */
  static String table(List<CallRow> rows) {
    Map<String, List<CallRow>> groups = new LinkedHashMap<>();
    for (CallRow r : rows) {
      groups.computeIfAbsent(r.phase() + "|" + r.operation() + "|" + r.bytes(), k -> new ArrayList<>()).add(r);
    }
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "%-6s %-13s %9s %4s %9s %9s %9s %-33s %9s %-16s%n", "phase", "operation", "size",
        "n", "event_us", "cupti_us", "ours_us", "ours ok/bound/wrong/held/cpu/miss", "ref_us", "ref ok/wrong/cpu/miss"));
    for (List<CallRow> g : groups.values()) {
      CallRow f = g.get(0);
      Map<String, Integer> o = counts(g, CallRow::ours);
      Map<String, Integer> r = counts(g, CallRow::reference);
      b.append(String.format(Locale.ROOT, "%-6s %-13s %9s %4d %9s %9s %9s %-33s %9s %-16s%n", f.phase(), f.operation(),
          Sizes.label(f.bytes()), g.size(), fmt(median(g.stream().map(CallRow::cudaEventMicros).toList())),
          fmt(median(g.stream().map(CallRow::cuptiMicros).toList())),
          fmt(median(g.stream().filter(x -> isFigure(x.ours())).map(x -> x.ours().micros()).toList())),
          o.containsKey("off") ? "off" : o.get("ok") + "/" + o.get("bound") + "/" + o.get("wrong") + "/"
              + o.get("withheld") + "/" + o.get("cpu") + "/" + o.get("missing"),
          fmt(median(g.stream().filter(x -> isFigure(x.reference())).map(x -> x.reference().micros()).toList())),
          r.containsKey("off") ? "off" : r.get("ok") + "/" + r.get("wrong") + "/" + r.get("cpu") + "/" + r.get("missing")));
    }
    return b.toString();
  }

  /** One line per call: each clock's figure, each profiler's verdict and what it said of the record. */
  static String perCall(List<CallRow> rows) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "%6s %-6s %-13s %9s %9s %9s  %-36s  %s%n", "call", "phase", "operation", "size",
        "event_us", "cupti_us", "ours", "reference"));
    for (CallRow r : rows) {
      b.append(String.format(Locale.ROOT, "%6d %-6s %-13s %9s %9.1f %9s  %-36s  %s%n", r.call(), r.phase(),
          r.operation(), Sizes.label(r.bytes()), r.cudaEventMicros(), fmt(r.cuptiMicros()), describe(r.ours()),
          describe(r.reference())));
    }
    return b.toString();
  }

  private static String describe(Judged j) {
    if (j.verdict().equals("off")) {
      return "-";
    }
    return (j.micros() == null ? "" : fmt(j.micros()) + " ") + j.verdict()
        + (j.detail() == null ? "" : " [" + j.detail() + "]");
  }

  /** Totals by phase: how many collective and point-to-point figures each profiler got right, wrong or withheld. */
  static String summary(List<CallRow> rows) {
    Map<String, int[]> byKey = new TreeMap<>();
    for (CallRow r : rows) {
      String cls = r.operation().equals("AlltoAll") ? "AlltoAll"
          : Operation.byName(r.operation()).collective ? "collective" : "Send/Recv";
      for (String who : new String[] {"ours", "reference"}) {
        Judged j = who.equals("ours") ? r.ours() : r.reference();
        if (j.verdict().equals("off")) {
          continue;
        }
        int[] c = byKey.computeIfAbsent(who + " " + r.phase() + " " + cls, k -> new int[7]);
        c[0]++;
        switch (j.verdict()) {
          case "ok" -> c[1]++;
          case "wrong" -> c[2]++;
          case "withheld" -> c[3]++;
          case "cpu" -> c[4]++;
          case "bound" -> c[6]++;
          default -> c[5]++;
        }
      }
    }
    StringBuilder b = new StringBuilder();
    byKey.forEach((k, c) -> b.append(String.format(Locale.ROOT,
        "%-30s calls %5d: ok %5d, lower bound %5d, wrong %5d, withheld %5d, cpu-timed %5d, missing/unchecked %5d%n", k,
        c[0], c[1], c[6], c[2], c[3], c[4], c[5])));
    return b.toString();
  }

  private static boolean isFigure(Judged j) {
    return j.micros() != null && (j.verdict().equals("ok") || j.verdict().equals("bound") || j.verdict().equals("wrong"));
  }

  private static Map<String, Integer> counts(List<CallRow> g, Function<CallRow, Judged> f) {
    Map<String, Integer> m = new TreeMap<>();
    for (String k : List.of("ok", "bound", "wrong", "withheld", "cpu", "missing")) {
      m.put(k, 0);
    }
    for (CallRow r : g) {
      String v = f.apply(r).verdict();
      if (v.equals("unchecked")) {
        v = "missing";
      }
      m.merge(v, 1, Integer::sum);
    }
    return m;
  }

  static Double median(List<Double> values) {
    double[] a = values.stream().filter(Objects::nonNull).mapToDouble(Double::doubleValue).toArray();
    if (a.length == 0) {
      return null;
    }
    Arrays.sort(a);
    return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
  }

  private static String fmt(Double v) {
    return v == null ? "-" : String.format(Locale.ROOT, "%.1f", v);
  }
}
