package io.ncclinspector.examples.bench;

import io.ncclinspector.EventCounters;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import io.ncclinspector.replay.ReplayResult;
import io.ncclinspector.replay.TraceEvents;
import io.ncclinspector.replay.TraceReader;
import io.ncclinspector.replay.TraceReplayer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * Records per second through the JVM side: the callbacks a recorded run made into the plugin
 * (the trace is first replayed once with the raw event recording on, which keeps exactly the
 * calls NCCL makes for the inspector's activation mask) are driven through the plugin table in a
 * loop, while the dump thread drains, decodes and writes JSON Lines.
 *
 * <ul>
 *   <li>max: the producer runs flat out; reported are the records the dump thread delivered per
 *       second and what the ring had to drop (it never blocks the producer);
 *   <li>sustained: the producer is paced to a target rate of operations per second with the
 *       default ring size, JSON output off (drain, decode, deliver) and on; a run passes if
 *       the producer made at least 99 % of the target rate, nothing is dropped and the record path
 *       kept up: when the producer stops, at most 250 ms of
 *       its production is still on its way (not yet delivered; with JSON, not yet written), so a
 *       lag that only the queues absorbed for the run's few seconds does not pass.
 * </ul>
 *
 * <p><em>written</em> counts the lines of both JSON files: the output file and the quarantine file
 * beside it (records whose GPU timestamps are not trusted are written there, line for line the
 * same work). <em>cpu</em> is the process's CPU time (every thread: producer, dump thread, JSON
 * writer, analysis, GC, JIT) per record delivered, a figure less sensitive than rates to other
 * work sharing the machine.
 *
 * <pre>
 * bench/dump-throughput [TRACE] [SECONDS] [TARGET_OPS_PER_SECOND]
 * </pre>
 *
 * <p>{@code -Dbench.dir=DIR} chooses where the output is written (default: java.io.tmpdir).
 * {@code -Dbench.comms=long-lived} keeps the trace's communicators for the whole run: their inits
 * (the calls before the trace's first other call) are made once at the start and their finalizes
 * (the calls after its last other call) once at the end, and each pass drives only the calls
 * between, as a job with long-lived communicators makes them. By default ({@code per-pass}) each
 * pass is the whole trace, a communicator created and destroyed every pass.
 */
public final class DumpThroughputBenchmark {
  /**
   * A paced run passes when nothing was dropped and, when the producer stopped, at most this much
   * of its production (in milliseconds at the target rate) was still on its way: at 500k/s about
   * half the JSON writer's queue (2^18 records), so that over a 5 s run the writer kept at least
   * 95 % of the rate, rather than passing on a queue that absorbed a steady lag for the run's
   * length. The ring (about 40 ms at 500k/s), the dump thread's naps and a pause of the writer fit
   * well within it.
   */
  private static final int MAX_BACKLOG_MS = 250;

  /**
   * A paced run passes only if the producer made at least this share of the target rate: the pacing
   * reaches 99.9 % of it where the CPUs allow.
   */
  private static final double MIN_PRODUCED_SHARE = 0.99;

  private DumpThroughputBenchmark() {}

  /** USER_HZ: the unit of /proc's CPU times, 100 on Linux for every architecture the core builds for. */
  private static final long CLOCK_TICKS_PER_SECOND = 100;

  /** The deferred mode's consumer: a native thread of the core, which the JVM does not list. */
  private static final String DEFERRED_CONSUMER = "nccl-insp-defer";

  /**
   * How a run drives the trace: {@link #pass} once per pass between {@link #start} and
   * {@link #finish}. Per pass, each pass is the whole trace (its communicators created and
   * destroyed); long-lived, the trace's leading inits come at the start, its trailing finalizes at
   * the finish, and each pass drives the calls between.
   */
  private record Passes(TraceEvents calls, boolean longLived, ByteBuffer inits, ByteBuffer body,
      ByteBuffer finalizes) {
    static Passes of(TraceEvents calls, boolean longLived) {
      int first = calls.leadingInits();
      int last = calls.count() - calls.trailingFinalizes();
      return new Passes(calls, longLived, calls.slice(0, first), calls.slice(first, last - first),
          calls.slice(last, calls.count() - last));
    }

    void start(String lib) {
      if (longLived) {
        open(lib);
        run(inits);
      }
    }

    void pass(String lib) {
      if (!longLived) {
        open(lib);
        ProfilerTableDriver.run(calls.events(), calls.count(), 0, null);
        ProfilerTableDriver.close();
      } else {
        run(body);
      }
    }

    void finish() {
      if (longLived) {
        run(finalizes);
        ProfilerTableDriver.close();
      }
    }

    private void open(String lib) {
      ProfilerTableDriver.open(lib);
      ProfilerTableDriver.prepare(calls.maxHandleId(), calls.maxContextId());
    }

    private static void run(ByteBuffer events) {
      ProfilerTableDriver.run(events, events.capacity() / TraceEvents.eventBytes(), 0, null);
    }
  }

  public static void main(String[] args) throws Exception {
    Path trace = Path.of(args.length > 0 ? args[0] : "examples/traces/h3_mix-trace-pid1061.jsonl.gz");
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 5;
    long target = args.length > 2 ? Long.parseLong(args[2]) : 500_000;
    Path work = Files.createTempDirectory(Path.of(System.getProperty("bench.dir", System.getProperty("java.io.tmpdir"))), "nccl-inspector-bench");
    TraceEvents calls = recordedCalls(trace, work);
    String comms = System.getProperty("bench.comms", "per-pass");
    if (!comms.equals("per-pass") && !comms.equals("long-lived")) {
      throw new IllegalArgumentException("bench.comms is per-pass or long-lived, not " + comms);
    }
    Passes passes = Passes.of(calls, comms.equals("long-lived"));
    int recordsPerPass = recordsPerPass(passes, work);
    System.out.printf("%s: %d calls into the plugin and %d records per pass%n", trace.getFileName(),
        calls.count(), recordsPerPass);
    if (passes.longLived()) {
      System.out.printf("communicators long-lived: %d inits at the start, %d finalizes at the end%n",
          calls.leadingInits(), calls.trailingFinalizes());
    }
    run(passes, work, false, 1, 0, recordsPerPass); /* warm-up */
    run(passes, work, true, 1, 0, recordsPerPass);
    run(passes, work, false, seconds, 0, recordsPerPass);
    run(passes, work, true, seconds, 0, recordsPerPass);
    run(passes, work, false, seconds, target, recordsPerPass);
    run(passes, work, true, seconds, target, recordsPerPass);
    delete(work);
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
    }
  }

  /** The calls NCCL made into the inspector for this trace: a recording made by replaying it. */
  private static TraceEvents recordedCalls(Path trace, Path work) throws Exception {
    InspectorConfig config = InspectorConfig.builder().fromEnvironment().dumpDirectory(work.resolve("rec-out"))
        .traceDirectory(work.resolve("rec")).build();
    ReplayResult r = TraceReplayer.replay(trace, config, "bench");
    return new TraceReader().read(r.recording().orElseThrow().file());
  }

  /**
   * Records one pass delivers: the whole trace's, or with long-lived communicators the difference
   * between eleven passes and one, each between the inits and the finalizes (what is left in flight
   * at a finalize and flushed then comes once a run, not once a pass).
   */
  private static int recordsPerPass(Passes passes, Path work) throws Exception {
    if (!passes.longLived()) {
      return (int) countRecords(passes, work, 1);
    }
    return (int) ((countRecords(passes, work, 11) - countRecords(passes, work, 1)) / 10);
  }

  /** Records delivered for n passes between a start and a finish. */
  private static long countRecords(Passes passes, Path work, int n) throws Exception {
    InspectorConfig config = InspectorConfig.builder().dumpDirectory(Files.createTempDirectory(work, "count"))
        .jsonOutput(false).minMessageBytes(0).requireKernelTiming(false).build();
    NcclInspector inspector = NcclInspector.enable(config);
    String lib = inspector.status().libraryPath().orElseThrow().toString();
    passes.start(lib);
    for (int i = 0; i < n; i++) {
      passes.pass(lib);
    }
    passes.finish();
    inspector.close();
    return inspector.status().records().received();
  }

  private static void run(Passes passes, Path work, boolean json, double seconds, long targetOpsPerSecond,
      int recordsPerPass) throws Exception {
    Path out = Files.createTempDirectory(work, "out");
    InspectorConfig config = InspectorConfig.builder().fromEnvironment().dumpDirectory(out).jsonOutput(json)
        .minMessageBytes(0).requireKernelTiming(false).dumpInterval(Duration.ofSeconds(1)).build();
    NcclInspector inspector = NcclInspector.enable(config);
    String lib = inspector.status().libraryPath().orElseThrow().toString();
    Map<String, Long> threadCpu = new TreeMap<>();
    Map<String, Long> threadKernel = new TreeMap<>();
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    threadCpu.put("producer", -mx.getCurrentThreadCpuTime());
    threadKernel.put("producer", -(mx.getCurrentThreadCpuTime() - mx.getCurrentThreadUserTime()));
    long cpuStart = processCpuNanos();
    long start = System.nanoTime();
    long deadline = start + (long) (seconds * 1e9);
    long produced = 0;
    passes.start(lib);
    while (System.nanoTime() < deadline) {
      passes.pass(lib);
      produced += recordsPerPass;
      if (targetOpsPerSecond > 0) {
        long due = start + (long) (produced * 1e9 / targetOpsPerSecond);
        long wait = due - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
      }
    }
    passes.finish();
    long produceEnd = System.nanoTime();
    /* What had come through when the producer stopped: a paced run passes only if the record path
       kept up, not if a queue (2^18 records) absorbed a steady lag and drained at close. */
    long doneAtStop = json ? inspector.status().records().written() + inspector.status().records().quarantined()
        : inspector.status().records().received();
    threadCpu(threadCpu, threadKernel);
    inspector.close();
    long end = System.nanoTime();
    long cpu = processCpuNanos() - cpuStart;
    long delivered = inspector.status().records().received();
    long written = inspector.status().records().written() + inspector.status().records().quarantined();
    EventCounters counters = inspector.counters();
    long ringFull = counters.get("ring_full");
    long jsonFull = counters.get(EventCounters.JSON_BACKLOG_FULL);
    long analysisFull = counters.get(EventCounters.ANALYSIS_BACKLOG_FULL);
    long dropped = ringFull + jsonFull;
    double producedRate = produced / ((produceEnd - start) / 1e9);
    double elapsed = (end - start) / 1e9;
    long backlogAtStop = Math.max(0, produced - dropped - doneAtStop);
    double backlogMs = targetOpsPerSecond > 0 ? backlogAtStop * 1e3 / targetOpsPerSecond : 0;
    /* The producer's own rate counts too: its thread shares the CPUs with the record path (and in
       the deferred mode may have to replay its log), so a run whose producer fell short of the
       target did not sustain it, whatever the queues did. */
    boolean reached = producedRate >= MIN_PRODUCED_SHARE * targetOpsPerSecond;
    boolean pass = dropped == 0 && backlogMs <= MAX_BACKLOG_MS && reached;
    System.out.printf("  %-9s %-7s produced %,10.0f ops/s  delivered %,10.0f/s  written %,10.0f/s  dropped %,d (%.1f%%)"
        + "  cpu %.2f us/record%s%n",
        targetOpsPerSecond > 0 ? "sustained" : "max", json ? "json" : "no-json", producedRate,
        delivered / elapsed, written / elapsed, dropped, 100.0 * dropped / Math.max(produced, 1),
        cpu / 1e3 / Math.max(delivered, 1),
        targetOpsPerSecond > 0 ? (pass ? "   PASS (zero drops, kept up)"
            : reached ? "   FAIL" : "   FAIL (the producer fell short of the target)") : "");
    if (targetOpsPerSecond > 0) {
      System.out.printf("            at the producer's stop: %,d records not yet %s (%.0f ms of production; a pass"
          + " allows %d)%n", backlogAtStop, json ? "written" : "delivered", backlogMs, MAX_BACKLOG_MS);
    }
    System.out.printf("            drops: ring_full %,d  json_backlog_full %,d  analysis_backlog_full %,d%s%n",
        ringFull, jsonFull, analysisFull, deferredCounts(counters));
    StringBuilder perThread = new StringBuilder("            cpu per record delivered, by thread (us):");
    threadCpu.forEach((name, nanos) -> perThread.append(String.format(" %s %.2f", name, nanos / 1e3 / Math.max(delivered, 1))));
    perThread.append("; of which in the kernel:");
    /* at least 0: the producer's start is two reads of its times, a few ns apart */
    threadKernel.forEach((name, nanos) -> perThread.append(String.format(" %s %.2f", name,
        Math.max(0, nanos) / 1e3 / Math.max(delivered, 1))));
    System.out.println(perThread);
    /* Each run's output goes before the next: gigabytes of earlier runs' lines left in the page cache
       (dirty pages on a disk, memory on a tmpfs) made the later runs' writes several times dearer. */
    delete(out);
  }

  /**
   * The deferred mode's counters of calls that did more than log (their thread replayed the logs
   * itself, or lost the call), where any: the producer's CPU includes the first.
   */
  private static String deferredCounts(EventCounters counters) {
    long helped = counters.get("deferred_helped");
    long logFull = counters.get("deferred_log_full");
    return helped + logFull == 0 ? "" : String.format("; deferred: helped %,d  log_full %,d", helped, logFull);
  }

  /**
   * Adds the CPU time so far of the threads that work on records to {@code out}, and the part of it
   * spent in the kernel (system time: the page-cache copy of the writes, futex waits) to
   * {@code kernelOut}: the inspector's threads by their name without its per-instance number (each
   * run starts a new inspector, so theirs covers the run; read before the close, while they live),
   * and the producer (this thread, whose entries the caller started at minus its times at the
   * start of the run).
   */
  private static void threadCpu(Map<String, Long> out, Map<String, Long> kernelOut) {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      String name = t.getName();
      boolean ours = name.startsWith("nccl-inspector") || t == Thread.currentThread();
      long nanos = ours ? mx.getThreadCpuTime(t.getId()) : -1;
      long user = ours ? mx.getThreadUserTime(t.getId()) : -1;
      if (nanos > 0) {
        String key = t == Thread.currentThread() ? "producer" : name.replaceFirst("^nccl-inspector-", "")
            .replaceAll("-?\\d+$", "");
        out.merge(key, nanos, Long::sum);
        kernelOut.merge(key, Math.max(0, nanos - Math.max(user, 0)), Long::sum);
      }
    }
    nativeThreadCpu(out, kernelOut);
  }

  /**
   * Adds the CPU time of the core's native threads (the deferred mode's consumer), read from
   * /proc/self/task (user and system time in clock ticks, 10 ms at the usual 100 Hz: over a run of
   * seconds a few nanoseconds a record), to the same maps. Linux only; elsewhere nothing is added.
   */
  private static void nativeThreadCpu(Map<String, Long> out, Map<String, Long> kernelOut) {
    Path tasks = Path.of("/proc/self/task");
    if (!Files.isDirectory(tasks)) {
      return;
    }
    try (Stream<Path> list = Files.list(tasks)) {
      for (Path task : (Iterable<Path>) list::iterator) {
        try {
          if (!Files.readString(task.resolve("comm")).strip().equals(DEFERRED_CONSUMER)) {
            continue;
          }
          /* fields after the command's closing parenthesis: state is field 3, utime 14, stime 15 */
          String stat = Files.readString(task.resolve("stat"));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          long tick = 1_000_000_000L / CLOCK_TICKS_PER_SECOND;
          long user = Long.parseLong(f[11]) * tick;
          long system = Long.parseLong(f[12]) * tick;
          out.merge("defer-consumer", user + system, Long::sum);
          kernelOut.merge("defer-consumer", system, Long::sum);
        } catch (IOException | RuntimeException e) {
          /* the thread ended between the listing and the read */
        }
      }
    } catch (IOException e) {
      /* no /proc to read */
    }
  }

  /** CPU time of the whole process so far (all threads). */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
