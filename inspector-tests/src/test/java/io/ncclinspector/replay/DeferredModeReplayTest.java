package io.ncclinspector.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.internal.InspectorRuntime;
import io.ncclinspector.testsupport.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deferred mode (NCCL_INSPECTOR_DEFERRED: callbacks log, the core's thread replays them; native
 * defer_log.h) must write what the synchronous mode writes. Every recorded trace of the repository
 * is replayed once each way, with channel recovery on and off (the network breakdown on), as fast
 * as the driver makes its calls (the consumer falls behind, and the calling thread helps), and the
 * two outputs must hold the same lines (every record, field for field: times, recovery verdicts,
 * network breakdowns, not-profiled calls; only the time each line was written differs) and the
 * same counters, but for the deferred mode's own notes. Each deferred replay must have run
 * deferred: the mode starts only with no communicator live, and until the replayer finalized what
 * a trace cut short left open, 83 of the 88 replays here ran synchronously and compared that mode
 * with itself.
 */
class DeferredModeReplayTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path out;

  @TestFactory
  Stream<DynamicTest> everyTraceGivesTheSameOutputBothWays() throws IOException {
    List<Path> traces = new ArrayList<>();
    for (String scenario : TestData.scenarios()) {
      traces.addAll(TestData.traceFiles(scenario));
    }
    assertFalse(traces.isEmpty(), "no recorded traces in testdata");
    List<DynamicTest> tests = new ArrayList<>();
    for (boolean recovery : new boolean[] {true, false}) {
      for (Path t : traces) {
        tests.add(DynamicTest.dynamicTest(t.getParent().getParent().getFileName() + "/" + t.getFileName()
            + (recovery ? "" : ", channel recovery off"), () -> check(t, recovery)));
      }
    }
    return tests.stream();
  }

  private void check(Path trace, boolean recovery) throws IOException {
    String name = trace.getParent().getParent().getFileName() + "-" + trace.getFileName() + (recovery ? "" : "-norecov");
    ReplayResult sync = TraceReplayer.replay(trace, config(out.resolve(name + "-sync"), false, recovery), "vm");
    ReplayResult deferred = TraceReplayer.replay(trace, config(out.resolve(name + "-deferred"), true, recovery), "vm");
    /* The deferred mode starts only with no communicator live: a replay that ran synchronously
       would compare the synchronous mode with itself. */
    assertFalse(deferred.status().problems().contains(InspectorRuntime.DEFERRED_NOT_STARTED),
        name + ": the deferred mode did not start");
    List<String> a = lines(out.resolve(name + "-sync"));
    List<String> b = lines(out.resolve(name + "-deferred"));
    assertEquals(a.size(), b.size(), name + ": lines written");
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).equals(b.get(i))) {
        fail(name + ": line " + i + " of the sorted outputs differs: " + difference(a.get(i), b.get(i)));
      }
    }
    /* Drops included: a call the deferred mode lost (deferred_log_full, _map_full) fails here. */
    assertEquals(sync.counters().drops(), deferred.counters().drops(), name + ": drops");
    /* The deferred mode's own notes (a calling thread that replayed its full log, one that took an
       exited thread's log or the shared one) tell how the mode ran, not what the job did. */
    assertEquals(jobNotes(sync.counters().notes()), jobNotes(deferred.counters().notes()), name + ": notes");
    assertEquals(sync.counters().quarantined(), deferred.counters().quarantined(), name + ": quarantined");
  }

  private static Map<String, Long> jobNotes(Map<String, Long> notes) {
    Map<String, Long> out = new TreeMap<>(notes);
    out.keySet().removeIf(k -> k.startsWith("deferred_"));
    return out;
  }

  /** The fields in which two JSON lines differ, as path: synchronous / deferred. */
  private static String difference(String a, String b) throws IOException {
    List<String> out = new ArrayList<>();
    diff("", JSON.readTree(a), JSON.readTree(b), out);
    return String.join("; ", out) + " (first line: " + a + ")";
  }

  private static void diff(String path, JsonNode a, JsonNode b, List<String> out) {
    if (a != null && b != null && a.isObject() && b.isObject()) {
      java.util.Set<String> names = new java.util.TreeSet<>();
      a.fieldNames().forEachRemaining(names::add);
      b.fieldNames().forEachRemaining(names::add);
      for (String n : names) {
        diff(path + "/" + n, a.get(n), b.get(n), out);
      }
    } else if (a == null || !a.equals(b)) {
      out.add(path + ": " + a + " / " + b);
    }
  }

  private static InspectorConfig config(Path dir, boolean deferred, boolean recovery) {
    return InspectorConfig.builder().dumpDirectory(dir).minMessageBytes(0).requireKernelTiming(false)
        .channelRecovery(recovery).deferred(deferred).build();
  }

  /** Every line of every output file, sorted (the files' order of writing is not compared). */
  private static List<String> lines(Path dir) throws IOException {
    List<String> all = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return all;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
        for (String line : Files.readAllLines(f)) {
          if (!line.isBlank()) {
            /* When the line was written (the dump thread's clock) is the one field of its own. */
            all.add(line.replaceAll("\"dump_timestamp_us\":[0-9]+", "\"dump_timestamp_us\":0"));
          }
        }
      }
    }
    Collections.sort(all);
    return all;
  }
}
