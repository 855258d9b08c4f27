package io.ncclinspector.examples.bench;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import io.ncclinspector.replay.TraceEvents;
import io.ncclinspector.replay.TraceReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Cost of one profiler callback on NCCL's side: a recorded trace is driven through the exported
 * {@code ncclProfiler_v5} table (looked up with dlsym, as NCCL does) while the JVM's dump thread
 * drains and writes JSON, and every call is timed. The same calls into a built-in plugin whose
 * functions return at once give the baseline of the same run (the call and the clock reads).
 *
 * <p>With {@code --reference LIB} (NVIDIA's Inspector plugin, built by
 * {@code examples/build-reference-plugin.sh}), the same calls go through that plugin too, in the
 * same run, and the excess cost over the do-nothing plugin is compared on the calls both plugins
 * get (each gets what its own activation mask asks for, as NCCL would make them; ours asks for more
 * types): 5 % trimmed mean and p90, pooled over every pass and pass by pass. The plugins' passes
 * alternate (do-nothing, this, NVIDIA's, in an order that turns each round), so that a change in the
 * machine's speed during the run falls on each plugin alike.
 *
 * <p>With {@code --compare TREE} (another checkout, built), that build's core is enabled in the same
 * JVM beside this one's ({@link OtherBuild}) and its passes join the rotation: the two builds are
 * compared pass by pass (other / this, median and quartiles), which on a shared host is the only
 * comparison of two builds that resolves a few per cent.
 *
 * <p>With {@code --floor LIB} (with {@code --reference}; {@code bench/c/log_floor_plugin.c}, built by
 * {@code bench/log-floor}), a plugin that only logs each call for a thread of its own joins the
 * rotation as well: the cost that no core deferring all its work could go below, beside NVIDIA's.
 *
 * <pre>
 * bench/callback-cost [TRACE] [REPETITIONS] [--reference LIB] [--compare TREE] [--floor LIB]
 * </pre>
 */
public final class CallbackCostBenchmark {
  private static final int OP = 0, TYPE = 4, HANDLE = 12;
  private static final int PROXY_STEP = 16;

  private CallbackCostBenchmark() {}

  public static void main(String[] args) throws Exception {
    List<String> positional = new ArrayList<>();
    String reference = null;
    String floor = null;
    Path otherTree = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--reference") && i + 1 < args.length) {
        reference = args[++i];
      } else if (args[i].equals("--floor") && i + 1 < args.length) {
        floor = args[++i];
      } else if (args[i].equals("--compare") && i + 1 < args.length) {
        otherTree = Path.of(args[++i]).toAbsolutePath();
      } else {
        positional.add(args[i]);
      }
    }
    Path trace = Path.of(positional.size() > 0 ? positional.get(0) : "examples/traces/h3_mix-trace-pid1061.jsonl.gz");
    int reps = positional.size() > 1 ? Integer.parseInt(positional.get(1)) : 200;
    TraceEvents events = new TraceReader().read(trace);
    String[] kinds = classify(events);
    if (floor != null && reference == null) {
      throw new IllegalArgumentException("--floor is compared with NVIDIA's plugin: give --reference LIB too");
    }
    Path out = Files.createTempDirectory("nccl-inspector-bench");
    try {
      run(trace, reps, reference, floor, otherTree, events, kinds, out);
    } finally {
      try (java.util.stream.Stream<Path> files = Files.walk(out)) {
        files.sorted((x, y) -> y.compareTo(x)).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static void run(Path trace, int reps, String reference, String floor, Path otherTree, TraceEvents events,
      String[] kinds, Path out) throws Exception {
    /* Warm up every path (JIT of the dump thread, page faults of the tables). */
    measure(events, null, 20);
    /* The plugins whose passes are timed: the do-nothing one, this build's core, another build's
     * core (--compare), NVIDIA's (--reference). */
    List<String> libs = new ArrayList<>(java.util.Arrays.asList((String) null));
    int otherIndex = -1;
    int referenceIndex = -1;
    int floorIndex = -1;
    long recordsWritten;
    long otherRecordsWritten = -1;
    InspectorConfig config = InspectorConfig.builder().fromEnvironment().dumpDirectory(out.resolve("this")).build();
    long[][][] runs;
    try (NcclInspector nccl = NcclInspector.enable(config);
        OtherBuild other = otherTree != null ? OtherBuild.enable(otherTree, out.resolve("other")) : null) {
      libs.add(nccl.status().libraryPath().orElseThrow().toString());
      if (other != null) {
        otherIndex = libs.size();
        libs.add(other.libraryPath());
      }
      if (reference != null) {
        /* Pinned for the whole run: the driver opens and closes the library around each pass, and
         * NVIDIA's plugin keeps threads running past the finalize of its communicators. */
        System.load(Path.of(reference).toAbsolutePath().toString());
        referenceIndex = libs.size();
        libs.add(reference);
      }
      if (floor != null) {
        /* Pinned too: its logs, one a thread, stay registered from one pass to the next. */
        System.load(Path.of(floor).toAbsolutePath().toString());
        floorIndex = libs.size();
        libs.add(floor);
      }
      for (int k = 1; k < libs.size(); k++) {
        measure(events, libs.get(k), 20);
      }
      /* The plugins' passes interleaved, their order turning each round, so that a drift of the
       * machine's speed during the run (other tenants of a shared host) weighs on each alike. */
      runs = new long[libs.size()][reps][];
      for (int r = 0; r < reps; r++) {
        for (int k = 0; k < libs.size(); k++) {
          int which = (r + k) % libs.size();
          runs[which][r] = measure(events, libs.get(which), 1)[0];
        }
      }
      nccl.close();
      recordsWritten = nccl.status().records().written();
      if (other != null) {
        other.close();
        otherRecordsWritten = other.recordsWritten();
      }
    }
    long[][] nullRuns = runs[0];
    long[][] oursRuns = runs[1];
    long[][] otherRuns = otherIndex >= 0 ? runs[otherIndex] : null;
    long[][] referenceRuns = referenceIndex >= 0 ? runs[referenceIndex] : null;
    long[][] floorRuns = floorIndex >= 0 ? runs[floorIndex] : null;
    Map<String, long[]> baseline = collect(kinds, nullRuns);
    Map<String, long[]> inspector = collect(kinds, oursRuns);
    System.out.printf("trace %s, %d events x %d repetitions, %d records written by the dump thread%s%n",
        trace.getFileName(), events.count(), reps, recordsWritten,
        otherRuns != null ? " (" + otherRecordsWritten + " by the other build's)" : "");
    System.out.printf("%-20s %10s %14s %14s %14s %14s %14s%n", "callback", "calls", "baseline p50",
        "inspector p50", "inspector p99", "own cost p50", "own cost p99");
    for (String kind : inspector.keySet()) {
      long[] b = baseline.get(kind);
      long[] m = inspector.get(kind);
      if (m.length == 0) {
        continue;
      }
      long b50 = pct(b, 50), b99 = pct(b, 99), m50 = pct(m, 50), m99 = pct(m, 99);
      System.out.printf("%-20s %10d %11d ns %11d ns %11d ns %11d ns %11d ns%n", kind, m.length, b50, m50, m99,
          m50 - b50, m99 - b99);
    }
    if (referenceRuns != null) {
      compare(kinds, nullRuns, oursRuns, referenceRuns, floorRuns);
    }
    if (otherRuns != null) {
      compareBuilds(kinds, nullRuns, oursRuns, otherRuns, referenceRuns, otherTree);
    }
  }

  /**
   * This build against another (--compare), on the calls both get, init and finalize left out:
   * pooled excess over the do-nothing plugin, and the ratio other / this pass by pass (each pass
   * of a build beside the other build's pass of the same round). With NVIDIA's plugin in the run,
   * each build's ratio to it as well.
   */
  private static void compareBuilds(String[] kinds, long[][] nullRuns, long[][] ours, long[][] other,
      long[][] reference, Path otherTree) {
    int n = kinds.length;
    boolean[] both = new boolean[n];
    int calls = 0;
    for (int i = 0; i < n; i++) {
      both[i] = !kinds[i].equals("init") && !kinds[i].equals("finalize") && ours[0][i] > 0 && other[0][i] > 0
          && nullRuns[0][i] > 0 && (reference == null || reference[0][i] > 0);
      calls += both[i] ? 1 : 0;
    }
    long[] nul = calls(nullRuns, both);
    double nMean = trimmedMean(nul);
    long n90 = pct(nul, 90);
    long[] o = calls(ours, both);
    long[] x = calls(other, both);
    System.out.printf("this build against %s, same run, pass by pass (%d calls per pass%s; init and finalize"
        + " left out), excess over the do-nothing plugin:%n", otherTree, calls,
        reference != null ? " that NVIDIA's gets too" : "");
    System.out.printf("  %-10s %14s %10s%n", "build", "trimmed mean", "p90");
    System.out.printf("  %-10s %11.1f ns %7d ns%n", "this", trimmedMean(o) - nMean, pct(o, 90) - n90);
    System.out.printf("  %-10s %11.1f ns %7d ns%n", "other", trimmedMean(x) - nMean, pct(x, 90) - n90);
    int reps = ours.length;
    double[] otherOverThis = new double[reps];
    double[] thisOverRef = new double[reps];
    double[] otherOverRef = new double[reps];
    for (int p = 0; p < reps; p++) {
      double oPass = passExcess(ours, nullRuns, p, both);
      double xPass = passExcess(other, nullRuns, p, both);
      otherOverThis[p] = xPass / oPass;
      if (reference != null) {
        double rPass = passExcess(reference, nullRuns, p, both);
        thisOverRef[p] = oPass / rPass;
        otherOverRef[p] = xPass / rPass;
      }
    }
    System.out.printf("  other / this, pass by pass (%d rounds): median %.3f, quartiles %.3f-%.3f%n", reps,
        median(otherOverThis), quartile(otherOverThis, 1), quartile(otherOverThis, 3));
    if (reference != null) {
      System.out.printf("  ratio to NVIDIA's, pass by pass: this %.3f (quartiles %.3f-%.3f), other %.3f"
          + " (quartiles %.3f-%.3f)%n", median(thisOverRef), quartile(thisOverRef, 1), quartile(thisOverRef, 3),
          median(otherOverRef), quartile(otherOverRef, 1), quartile(otherOverRef, 3));
    }
    printByKind(kinds, both, nMean, ours, other, "other");
  }

  /** Excess trimmed mean of two plugins by event kind, over the selected calls, with calls per pass. */
  private static void printByKind(String[] kinds, boolean[] selected, double nullMean, long[][] ours,
      long[][] second, String secondName) {
    printByKind(kinds, selected, nullMean, ours, second, secondName, null);
  }

  /** The same, with a third plugin's column (null: none). */
  private static void printByKind(String[] kinds, boolean[] selected, double nullMean, long[][] ours,
      long[][] second, String secondName, long[][] third) {
    int n = kinds.length;
    java.util.Map<String, boolean[]> byKind = new java.util.TreeMap<>();
    for (int i = 0; i < n; i++) {
      if (selected[i]) {
        byKind.computeIfAbsent(kinds[i], k -> new boolean[n])[i] = true;
      }
    }
    System.out.printf("  %-28s %8s %12s %12s%s%n", "by kind", "per pass", "this", secondName,
        third != null ? String.format(" %12s", "log floor") : "");
    byKind.forEach((kind, sel) -> {
      int count = 0;
      for (boolean b : sel) {
        count += b ? 1 : 0;
      }
      System.out.printf("  %-28s %8d %9.1f ns %9.1f ns%s%n", kind, count, trimmedMean(calls(ours, sel)) - nullMean,
          trimmedMean(calls(second, sel)) - nullMean,
          third != null ? String.format(" %9.1f ns", trimmedMean(calls(third, sel)) - nullMean) : "");
    });
  }

  /** Excess trimmed mean of a plugin's pass p over the do-nothing plugin's pass of the same round. */
  private static double passExcess(long[][] runs, long[][] nullRuns, int p, boolean[] selected) {
    return trimmedMean(calls(new long[][] {runs[p]}, selected)) - trimmedMean(calls(new long[][] {nullRuns[p]}, selected));
  }

  private static double median(double[] values) {
    return quartile(values, 2);
  }

  /** The q-th quartile (q = 1, 2, 3) of the values, as the rest of this benchmark picks them. */
  private static double quartile(double[] values, int q) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length * q / 4];
  }

  /**
   * Excess cost over the do-nothing plugin, ours against NVIDIA's, on the same calls: those both
   * plugins get (ours asks for more event types: the calls only ours gets are summed apart), init
   * and finalize left out.
   */
  private static void compare(String[] kinds, long[][] nullRuns, long[][] ours, long[][] reference, long[][] floor) {
    int n = kinds.length;
    boolean[] common = new boolean[n];
    boolean[] oursOnly = new boolean[n];
    int commonCalls = 0;
    int oursOnlyCalls = 0;
    for (int i = 0; i < n; i++) {
      if (kinds[i].equals("init") || kinds[i].equals("finalize") || ours[0][i] == 0) {
        continue;
      }
      if (reference[0][i] > 0 && nullRuns[0][i] > 0 && (floor == null || floor[0][i] > 0)) {
        common[i] = true;
        commonCalls++;
      } else {
        oursOnly[i] = true;
        oursOnlyCalls++;
      }
    }
    long[] nul = calls(nullRuns, common);
    long[] o = calls(ours, common);
    long[] r = calls(reference, common);
    double nMean = trimmedMean(nul);
    double oMean = trimmedMean(o) - nMean;
    double rMean = trimmedMean(r) - nMean;
    long n90 = pct(nul, 90);
    long o90 = pct(o, 90) - n90;
    long r90 = pct(r, 90) - n90;
    System.out.printf("same calls, both plugins (%d per pass; init and finalize left out), excess over the"
        + " do-nothing plugin (trimmed mean %.1f ns, p90 %d ns):%n", commonCalls, nMean, n90);
    System.out.printf("  %-10s %14s %10s%n", "plugin", "trimmed mean", "p90");
    System.out.printf("  %-10s %11.1f ns %7d ns%n", "this", oMean, o90);
    System.out.printf("  %-10s %11.1f ns %7d ns%n", "NVIDIA's", rMean, r90);
    if (floor != null) {
      long[] f = calls(floor, common);
      double fMean = trimmedMean(f) - nMean;
      long f90 = pct(f, 90) - n90;
      System.out.printf("  %-10s %11.1f ns %7d ns%n", "log floor", fMean, f90);
      System.out.printf("  ratio log floor / NVIDIA's: trimmed mean %.2f, p90 %.2f%n", fMean / rMean, (double) f90 / r90);
    }
    System.out.printf("  ratio this / NVIDIA's: trimmed mean %.2f, p90 %.2f%n", oMean / rMean, (double) o90 / r90);
    /* By kind: where the difference is (calls per pass, excess trimmed mean of each plugin). */
    printByKind(kinds, common, nMean, ours, reference, "NVIDIA's", floor);
    /* Pass by pass (each pass of a plugin beside the others' passes of the same round). */
    double[] ratios = new double[ours.length];
    for (int p = 0; p < ours.length; p++) {
      ratios[p] = passExcess(ours, nullRuns, p, common) / passExcess(reference, nullRuns, p, common);
    }
    System.out.printf("  ratio of the trimmed means pass by pass (%d rounds): median %.2f, quartiles %.2f-%.2f%n",
        ratios.length, median(ratios), quartile(ratios, 1), quartile(ratios, 3));
    if (floor != null) {
      double[] floorRatios = new double[ours.length];
      for (int p = 0; p < ours.length; p++) {
        floorRatios[p] = passExcess(floor, nullRuns, p, common) / passExcess(reference, nullRuns, p, common);
      }
      System.out.printf("  log floor / NVIDIA's pass by pass: median %.2f, quartiles %.2f-%.2f%n", median(floorRatios),
          quartile(floorRatios, 1), quartile(floorRatios, 3));
    }
    long[] extra = calls(ours, oursOnly);
    System.out.printf("calls only this plugin gets (CollApi, KernelLaunch and their stops): %d per pass,"
        + " excess trimmed mean %.1f ns (against the do-nothing plugin's calls above)%n", oursOnlyCalls,
        trimmedMean(extra) - nMean);
  }

  /** The timed calls at the selected trace positions, of every run, sorted. */
  private static long[] calls(long[][] runs, boolean[] selected) {
    return Arrays.stream(runs).flatMapToLong(run -> java.util.stream.IntStream.range(0, run.length)
        .filter(i -> selected[i] && run[i] > 0).mapToLong(i -> run[i])).sorted().toArray();
  }

  /** Mean of the middle 90 % (the lowest and highest 5 % left out). */
  private static double trimmedMean(long[] sorted) {
    int cut = sorted.length / 20;
    return Arrays.stream(sorted, cut, sorted.length - cut).average().orElse(0);
  }

  /** Runs the trace `reps` times through the null plugin (lib == null) or the library. */
  private static long[][] measure(TraceEvents events, String lib, int reps) {
    long[][] times = new long[reps][];
    for (int r = 0; r < reps; r++) {
      if (lib == null ? ProfilerTableDriver.openNull() != 0 : ProfilerTableDriver.open(lib) != 0) {
        throw new IllegalStateException(ProfilerTableDriver.error());
      }
      ProfilerTableDriver.prepare(events.maxHandleId(), events.maxContextId());
      long[] ns = new long[events.count()];
      ProfilerTableDriver.run(events.events(), events.count(), 0, ns);
      times[r] = ns;
      ProfilerTableDriver.close();
    }
    return times;
  }

  /** Per-callback kind, all timed calls (0 = the event was not sent, as NCCL would not send it). */
  private static Map<String, long[]> collect(String[] kinds, long[][] runs) {
    Map<String, List<Long>> byKind = new LinkedHashMap<>();
    for (String k : List.of("start Coll", "start P2p", "start KernelCh", "start ProxyStep", "start Group",
        "start GroupApi", "start CollApi", "start KernelLaunch", "start ProxyOp", "start (other types)",
        "state ProxyStep", "stop ProxyStep", "stop Coll", "stop P2p", "stop KernelCh", "stop (other types)",
        "recordEventState KernelCh", "recordEventState (other)", "init", "finalize")) {
      byKind.put(k, new ArrayList<>());
    }
    for (long[] run : runs) {
      for (int i = 0; i < run.length; i++) {
        if (run[i] > 0) {
          byKind.get(kinds[i]).add(run[i]);
        }
      }
    }
    Map<String, long[]> result = new LinkedHashMap<>();
    List<Long> all = new ArrayList<>();
    byKind.forEach((k, v) -> {
      result.put(k, v.stream().mapToLong(Long::longValue).sorted().toArray());
      all.addAll(v);
    });
    result.put("all callbacks", all.stream().mapToLong(Long::longValue).sorted().toArray());
    return result;
  }

  private static String[] classify(TraceEvents events) {
    ByteBuffer b = events.events().duplicate().order(ByteOrder.LITTLE_ENDIAN);
    String[] kinds = new String[events.count()];
    /* The ProxyStep callbacks apart (issue 23): a stop or state is a step's when its handle's
     * start was (the trace's handle ids are not reused). */
    java.util.Map<Integer, Integer> startType = new java.util.HashMap<>();
    for (int i = 0; i < kinds.length; i++) {
      int base = i * TraceEvents.eventBytes();
      int op = b.get(base + OP);
      int type = b.getInt(base + TYPE);
      int handle = b.getInt(base + HANDLE);
      if (op == 1) {
        startType.put(handle, type);
      }
      int of = startType.getOrDefault(handle, -1);
      boolean step = of == PROXY_STEP;
      kinds[i] = switch (op) {
        case 0 -> "init";
        case 1 -> type == 2 ? "start Coll" : type == 4 ? "start P2p" : type == 64 ? "start KernelCh"
            : type == PROXY_STEP ? "start ProxyStep" : type == 1 ? "start Group" : type == 256 ? "start GroupApi"
            : type == 512 ? "start CollApi" : type == 2048 ? "start KernelLaunch" : type == 8 ? "start ProxyOp"
            : "start (other types)";
        case 2 -> step ? "stop ProxyStep" : of == 2 ? "stop Coll" : of == 4 ? "stop P2p" : of == 64 ? "stop KernelCh"
            : "stop (other types)";
        case 3 -> step ? "state ProxyStep" : of == 64 ? "recordEventState KernelCh" : "recordEventState (other)";
        default -> "finalize";
      };
    }
    return kinds;
  }

  private static long pct(long[] sorted, int p) {
    if (sorted.length == 0) {
      return 0;
    }
    int idx = (int) Math.min(sorted.length - 1, Math.ceil(p / 100.0 * sorted.length) - 1);
    return sorted[Math.max(idx, 0)];
  }

  static long[] flatten(long[][] runs) {
    return Arrays.stream(runs).flatMapToLong(Arrays::stream).toArray();
  }
}
