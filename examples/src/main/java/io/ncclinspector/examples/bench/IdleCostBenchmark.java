package io.ncclinspector.examples.bench;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.NcclInspector;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What an enabled inspector costs a process that makes no NCCL calls: the CPU time of its threads
 * (the kernel's per-thread {@code schedstat}, in nanoseconds) and their wake-ups (voluntary context
 * switches), per second of an idle job, the deferred mode (its consumer thread polls the logs) and
 * the synchronous one enabled in turn, ROUNDS times each.
 *
 * <pre>
 * bench/idle-cost [SECONDS] [ROUNDS]
 * </pre>
 *
 * <p>Prints per mode: the consumer thread's ({@code nccl-insp-defer}) CPU µs and wake-ups a second,
 * and those of every thread of the process but the one that waits (the JVM's own threads
 * included, so that the difference between the modes is what the deferred mode adds). With
 * {@code -Didle.threads=true} (e.g. through {@code JAVA_TOOL_OPTIONS}) also each thread that used
 * CPU, by name.
 */
public final class IdleCostBenchmark {
  private static final String CONSUMER = "nccl-insp-defer";

  private IdleCostBenchmark() {}

  /** CPU ns and voluntary switches of one thread. */
  private record Sample(String name, long cpuNanos, long wakeups) {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    Path dir = Files.createTempDirectory("idle-cost");
    long self = currentTid();
    System.out.printf("idle for %d s a run, %d rounds, modes in turn (inspector enabled, no NCCL calls)%n", seconds,
        rounds);
    for (int round = 1; round <= rounds; round++) {
      for (boolean deferred : round % 2 == 1 ? new boolean[] {true, false} : new boolean[] {false, true}) {
        InspectorConfig config = InspectorConfig.builder().fromEnvironment().deferred(deferred)
            .dumpDirectory(dir.resolve("r" + round + (deferred ? "d" : "s"))).build();
        try (NcclInspector inspector = NcclInspector.enable(config)) {
          Thread.sleep(2000); /* the threads started and settled */
          Map<Long, Sample> before = threads();
          long t0 = System.nanoTime();
          Thread.sleep(seconds * 1000L);
          long wall = System.nanoTime() - t0;
          Map<Long, Sample> after = threads();
          long consumerCpu = 0;
          long consumerWakeups = 0;
          long allCpu = 0;
          long allWakeups = 0;
          boolean consumerSeen = false;
          for (Map.Entry<Long, Sample> e : after.entrySet()) {
            if (e.getKey() == self) {
              continue;
            }
            Sample b = before.get(e.getKey());
            long cpu = e.getValue().cpuNanos() - (b == null ? 0 : b.cpuNanos());
            long wakeups = e.getValue().wakeups() - (b == null ? 0 : b.wakeups());
            allCpu += cpu;
            allWakeups += wakeups;
            if (e.getValue().name().equals(CONSUMER)) {
              consumerSeen = true;
              consumerCpu += cpu;
              consumerWakeups += wakeups;
            }
          }
          double s = wall / 1e9;
          if (Boolean.getBoolean("idle.threads")) {
            for (Map.Entry<Long, Sample> e : after.entrySet()) {
              Sample b = before.get(e.getKey());
              long cpu = e.getValue().cpuNanos() - (b == null ? 0 : b.cpuNanos());
              long wakeups = e.getValue().wakeups() - (b == null ? 0 : b.wakeups());
              if (cpu > 0) {
                System.out.printf("    %-24s CPU %8.1f us/s, %6.0f wake-ups/s%n", e.getValue().name(), cpu / 1e3 / s,
                    wakeups / s);
              }
            }
          }
          System.out.printf("round %d %-11s consumer %s; all threads: CPU %8.1f us/s, %6.0f wake-ups/s%n", round,
              deferred ? "deferred" : "synchronous",
              consumerSeen ? String.format("CPU %6.1f us/s, %5.0f wake-ups/s", consumerCpu / 1e3 / s,
                  consumerWakeups / s) : "none                                ",
              allCpu / 1e3 / s, allWakeups / s);
        }
      }
    }
  }

  private static long currentTid() throws IOException {
    /* /proc/thread-self names this thread's task directory. */
    return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
  }

  /** Every thread of this process: name, CPU time (schedstat, ns) and voluntary switches. */
  private static Map<Long, Sample> threads() throws IOException {
    Map<Long, Sample> out = new HashMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path task : tasks.toList()) {
        try {
          String name = Files.readString(task.resolve("comm")).strip();
          long cpu = Long.parseLong(Files.readString(task.resolve("schedstat")).split(" ")[0]);
          long wakeups = 0;
          List<String> status = Files.readAllLines(task.resolve("status"));
          for (String line : status) {
            if (line.startsWith("voluntary_ctxt_switches:")) {
              wakeups = Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
            }
          }
          out.put(Long.parseLong(task.getFileName().toString()), new Sample(name, cpu, wakeups));
        } catch (IOException | RuntimeException e) {
          /* a thread that exited between the listing and the reads */
        }
      }
    }
    return out;
  }
}
