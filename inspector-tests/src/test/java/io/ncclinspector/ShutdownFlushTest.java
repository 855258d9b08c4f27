package io.ncclinspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.testsupport.TestData;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import io.ncclinspector.replay.TraceEvents;
import io.ncclinspector.replay.TraceReader;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A program that enables the inspector and exits without closing it loses nothing: the shutdown
 * hook writes every completed record. Runs a real second JVM that replays h3_mix rank 0 through
 * the plugin table and then calls System.exit, with nothing on its class path but the core, the test
 * kit that drives it and their dependencies: no exporter module.
 */
class ShutdownFlushTest {
  @TempDir Path dir;

  /** The child JVM: enable, drive the trace, exit without close. */
  public static void main(String[] args) throws Exception {
    Path trace = Path.of(args[0]);
    Path out = Path.of(args[1]);
    TraceEvents events = new TraceReader().read(trace);
    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(out)
        .minMessageBytes(0).requireKernelTiming(false).dumpInterval(java.time.Duration.ofHours(1)).build());
    if (ProfilerTableDriver.open(inspector.status().libraryPath().orElseThrow().toString()) != 0
        || ProfilerTableDriver.prepare(events.maxHandleId(), events.maxContextId()) != 0) {
      System.exit(3);
    }
    ProfilerTableDriver.run(events.events(), events.count() - 1, 1, null); /* all but the finalize */
    System.out.println("expected " + expected(trace));
    System.exit(0);
  }

  /** Operations in the trace: every Coll and P2p start. */
  private static long expected(Path trace) throws Exception {
    try (var in = new java.io.BufferedReader(new java.io.InputStreamReader(
        new java.util.zip.GZIPInputStream(Files.newInputStream(trace))))) {
      return in.lines().filter(l -> l.contains("\"type\":\"Coll\"") || l.contains("\"type\":\"P2p\"")).count();
    }
  }

  @Test
  void exitingWithoutCloseStillWritesEveryRecord() throws Exception {
    Path trace = TestData.traceFiles("h3_mix").get(0);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    /* No exporter, nor their libraries: the core needs none of them. */
    String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(e -> !e.matches(".*(inspector-prometheus|inspector-micrometer|inspector-jfr|inspector-opentelemetry"
            + "|micrometer|prometheus|opentelemetry).*"))
        .collect(Collectors.joining(File.pathSeparator));
    assertTrue(classPath.contains("inspector-api") && !classPath.contains("exporters"), classPath);
    Process p = new ProcessBuilder(java, "-cp", classPath,
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        "-Dorg.bytedeco.javacpp.cachedir=" + System.getProperty("org.bytedeco.javacpp.cachedir",
            Path.of(System.getProperty("user.home"), ".javacpp", "cache").toString()),
        ShutdownFlushTest.class.getName(),
        trace.toString(), dir.toString())
        .redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), output);
    long expected = Long.parseLong(output.lines().filter(l -> l.startsWith("expected "))
        .findFirst().orElseThrow().substring(9).trim());
    File[] files = dir.toFile().listFiles((d, n) -> n.endsWith(".log") && !n.endsWith(".quarantine.log"));
    assertEquals(1, files.length);
    List<String> lines = new java.util.ArrayList<>(Files.readAllLines(files[0].toPath()));
    Path quarantine = Path.of(files[0].getPath().replace(".log", ".quarantine.log"));
    if (Files.exists(quarantine)) {
      lines.addAll(Files.readAllLines(quarantine)); /* stale GPU timestamps of the recorded run */
    }
    assertEquals(expected, lines.size(), "records written at JVM exit");
    assertTrue(lines.stream().allMatch(l -> l.startsWith("{\"header\"") && l.endsWith("}}")));
  }
}
