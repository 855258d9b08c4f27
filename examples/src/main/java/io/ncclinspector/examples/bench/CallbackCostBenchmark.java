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
 * <pre>
 * bench/callback-cost [TRACE] [REPETITIONS]
 * </pre>
 */
public final class CallbackCostBenchmark {
  private static final int OP = 0, TYPE = 4;

  private CallbackCostBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path trace = Path.of(args.length > 0 ? args[0] : "examples/traces/h3_mix-trace-pid1061.jsonl.gz");
    int reps = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    TraceEvents events = new TraceReader().read(trace);
    String[] kinds = classify(events);
    Path out = Files.createTempDirectory("nccl-inspector-bench");

    /* Warm up both paths (JIT of the dump thread, page faults of the tables). */
    measure(events, null, 20);
    Map<String, long[]> baseline;
    Map<String, long[]> inspector;
    long recordsWritten;
    ProfilerTableDriver.openNull();
    baseline = collect(kinds, measure(events, null, reps));
    InspectorConfig config = InspectorConfig.builder().fromEnvironment().dumpDirectory(out).build();
    try (NcclInspector nccl = NcclInspector.enable(config)) {
      String lib = nccl.status().libraryPath().orElseThrow().toString();
      measure(events, lib, 20);
      inspector = collect(kinds, measure(events, lib, reps));
      nccl.close();
      recordsWritten = nccl.status().records().written();
    }
    System.out.printf("trace %s, %d events x %d repetitions, %d records written by the dump thread%n",
        trace.getFileName(), events.count(), reps, recordsWritten);
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
    Files.walk(out).sorted((x, y) -> y.compareTo(x)).forEach(p -> p.toFile().delete());
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
    for (String k : List.of("start Coll", "start P2p", "start KernelCh", "start (other types)", "stop",
        "recordEventState", "init", "finalize")) {
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
    for (int i = 0; i < kinds.length; i++) {
      int base = i * TraceEvents.eventBytes();
      int op = b.get(base + OP);
      int type = b.getInt(base + TYPE);
      kinds[i] = switch (op) {
        case 0 -> "init";
        case 1 -> type == 2 ? "start Coll" : type == 4 ? "start P2p" : type == 64 ? "start KernelCh"
            : "start (other types)";
        case 2 -> "stop";
        case 3 -> "recordEventState";
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
