package io.ncclinspector.examples.bench;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.ProcessIdentity;
import io.ncclinspector.internal.JsonFileSink;
import io.ncclinspector.internal.JsonLinesWriter;
import io.ncclinspector.replay.TracePlayer;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

/**
 * CPU time of the JSON writer thread's work per line, measured as the thread's own CPU time (not
 * wall time: on a VM shared with other work, time spent waiting for a CPU is left out, which makes
 * figures of different builds comparable in alternating runs). The records are those a replay of
 * the trace delivers (262 for h3_mix), written again and again:
 *
 * <ul>
 *   <li>writer: {@code JsonLinesWriter} to a stream that discards the bytes (the encoding alone);
 *   <li>file: {@code JsonFileSink}, what the JSON writer thread runs per record, to local disk
 *       (encoding, the held buffer, the file writes; user and user + system time);
 *   <li>appending thread: in builds whose sink appends the lines on a thread of its own
 *       ({@code nccl-inspector-json-append}), that thread's CPU time per line (the file writes,
 *       which then are not in the figures above); "-" in builds without it.
 * </ul>
 *
 * <p>Uses only what every build since 55f8703 (typed records, exporters) has, so that it also runs
 * as a single source file against the jars of another build:
 *
 * <pre>
 * bench/json-writer-cpu [TRACE] [TREE]
 * </pre>
 */
public final class JsonWriterCpuBenchmark {
  private static final int ROUNDS = 12;
  private static final int WARM_ROUNDS = 4;

  private JsonWriterCpuBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path trace = Path.of(args.length > 0 ? args[0] : "examples/traces/h3_mix-trace-pid1061.jsonl.gz");
    Path work = Files.createTempDirectory("nccl-inspector-writer-bench");
    try {
      OperationRecord[] records = records(trace, work.resolve("replay"));
      ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
      double[] writer = new double[ROUNDS];
      double[] fileUser = new double[ROUNDS];
      double[] fileTotal = new double[ROUNDS];
      double[] appendTotal = new double[ROUNDS];
      boolean appending = false;
      long micros = 1_795_942_870_000_000L;
      JsonLinesWriter w = new JsonLinesWriter(OutputStream.nullOutputStream(), new ProcessIdentity("bench-host", 1),
          "bench", false);
      for (int round = 0; round < ROUNDS; round++) {
        long c0 = cpu.getCurrentThreadCpuTime();
        long lines = 0;
        for (int pass = 0; pass < 2000; pass++, micros++) {
          for (OperationRecord r : records) {
            w.write(r, micros);
            lines++;
          }
          w.flush();
        }
        writer[round] = (cpu.getCurrentThreadCpuTime() - c0) / (double) lines;

        Path out = Files.createTempDirectory(work, "out");
        JsonFileSink sink = JsonFileSink.open(InspectorConfig.builder().dumpDirectory(out).build(), "bench");
        long a0 = appendingCpu(cpu);
        c0 = cpu.getCurrentThreadCpuTime();
        long u0 = cpu.getCurrentThreadUserTime();
        lines = 0;
        for (int pass = 0; pass < 1000; pass++) {
          for (OperationRecord r : records) {
            sink.operationCompleted(r);
            lines++;
          }
          if (pass % 4 == 0) {
            sink.flush(); /* the dump interval's flush, about every thousand records */
          }
        }
        sink.flush();
        long a1 = appendingCpu(cpu); /* before the close, which ends the thread */
        sink.close();
        fileTotal[round] = (cpu.getCurrentThreadCpuTime() - c0) / (double) lines;
        fileUser[round] = (cpu.getCurrentThreadUserTime() - u0) / (double) lines;
        appendTotal[round] = (a1 - a0) / (double) lines;
        appending |= a1 > 0;
        delete(out);
      }
      System.out.printf("%s: %d records; CPU ns per line, median (min) of %d rounds after %d warm-up rounds:%n",
          trace.getFileName(), records.length, ROUNDS - WARM_ROUNDS, WARM_ROUNDS);
      System.out.printf("  writer (encoding only) %s%n", summary(writer));
      System.out.printf("  file sink, user        %s%n", summary(fileUser));
      System.out.printf("  file sink, user+system %s%n", summary(fileTotal));
      System.out.printf("  appending thread       %s%n", appending ? summary(appendTotal) : "     -");
    } finally {
      delete(work);
    }
  }

  /** CPU time so far of the sink's appending threads alive now (0 if the build has none). */
  private static long appendingCpu(ThreadMXBean cpu) {
    long sum = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals("nccl-inspector-json-append")) {
        sum += Math.max(0, cpu.getThreadCpuTime(t.getId()));
      }
    }
    return sum;
  }

  /** The records a replay of the trace delivers, as the dump thread hands them on. */
  private static OperationRecord[] records(Path trace, Path dir) throws Exception {
    List<OperationRecord> seen = new CopyOnWriteArrayList<>();
    try (NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir)
        .jsonOutput(false).minMessageBytes(0).requireKernelTiming(false).build())) {
      inspector.addListener(new InspectorListener() {
        @Override
        public void operationCompleted(OperationRecord r) {
          seen.add(r);
        }
      });
      try (TracePlayer p = TracePlayer.open(inspector, trace)) {
        p.playAll();
      }
    }
    return seen.toArray(OperationRecord[]::new);
  }

  private static String summary(double[] perRound) {
    double[] kept = Arrays.copyOfRange(perRound, WARM_ROUNDS, perRound.length);
    Arrays.sort(kept);
    return String.format("%,6.0f (%,.0f)", kept[kept.length / 2], kept[0]);
  }

  private static void delete(Path p) throws Exception {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
