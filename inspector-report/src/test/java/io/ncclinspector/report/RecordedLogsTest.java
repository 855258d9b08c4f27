package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.report.analysis.RankLateness;
import io.ncclinspector.report.analysis.StragglerResult;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real logs: the reference Inspector's own output from GPU runs (testdata/traces), and this
 * project's output for the 3-rank h3_mix run (replayed from its recorded trace with
 * {@code bin/nccl-inspector replay --all-timing --min-size 0}; kept in test resources).
 */
class RecordedLogsTest {
  private static long lines(Path gz) throws Exception {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(
        Files.newInputStream(gz)), StandardCharsets.UTF_8))) {
      return r.lines().filter(l -> !l.isBlank()).count();
    }
  }

  @Test
  void everyLineOfTheReferenceInspectorsLogsIsImported(@TempDir Path tmp) throws Exception {
    Path traces = TestSupport.testDataDir().resolve("traces");
    assertTrue(Files.isDirectory(traces), "recorded traces expected at " + traces);
    long expected = 0;
    long uint8 = 0;
    List<Path> logs;
    try (Stream<Path> s = Files.walk(traces)) {
      logs = s.filter(p -> p.toString().endsWith(".log.gz")
          && p.getParent().getFileName().toString().equals("inspector")).toList();
    }
    for (Path p : logs) {
      expected += lines(p);
      try (BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(
          Files.newInputStream(p)), StandardCharsets.UTF_8))) {
        uint8 += r.lines().filter(l -> l.contains("_msg_size_bytes\":18446744")).count();
      }
    }
    assertTrue(expected > 1000 && uint8 > 0);
    // The whole traces folder: raw event traces are recognised and passed over.
    ReportResult r = TestSupport.report(tmp.resolve("out"), traces.toString());
    assertEquals(expected, r.data().overview().records());
    assertEquals(0, r.data().imported().rejected());
    assertEquals(uint8, (long) r.data().overview().excluded().get("invalid_size"));
    assertEquals(expected, r.data().overview().producers().get("nccl-inspector"));
    assertTrue(r.data().skipped().stream().anyMatch(s -> s.reason().startsWith("raw event")));
    assertTrue(r.data().classes().size() > 5);
    // The reference ids are cut to 14 hex digits; they are kept as written.
    assertTrue(r.data().communicators().stream().allMatch(c -> c.commId().length() == 16));
  }

  /**
   * A collective timed by its kernel's CUPTI record ({@code kernel_cupti}) is a GPU time: the report
   * keeps it in its figures, as it does {@code kernel_gpu}, and leaves CPU times out.
   */
  @Test
  void kernelTimesFromCuptiCountAsGpuTimes(@TempDir Path tmp) throws Exception {
    Path logs = Path.of("src/test/resources/replayed/h3_mix");
    for (String source : List.of("kernel_cupti", "collective_cpu")) {
      Path dir = Files.createDirectories(tmp.resolve(source));
      try (Stream<Path> files = Files.list(logs)) {
        for (Path f : files.toList()) {
          try (BufferedReader in = new BufferedReader(new InputStreamReader(
              new GZIPInputStream(Files.newInputStream(f)), StandardCharsets.UTF_8))) {
            List<String> lines = in.lines()
                .map(l -> l.replace("\"coll_timing_source\":\"kernel_gpu\"", "\"coll_timing_source\":\"" + source + "\""))
                .toList();
            Files.write(dir.resolve(f.getFileName().toString().replace(".gz", "")), lines);
          }
        }
      }
      ReportResult r = TestSupport.report(tmp.resolve("out-" + source), dir.toString());
      assertEquals(3 * 262, r.data().overview().records());
      long cpu = r.data().overview().excluded().getOrDefault("cpu_timing", 0L);
      if (source.equals("kernel_cupti")) {
        assertEquals(78, cpu, "only the CPU-timed send/receive-to-self parts are left out");
      } else {
        assertTrue(cpu > 78 + 3 * 100, "every collective CPU-timed is left out: " + cpu);
      }
    }
  }

  @Test
  void threeRanksTakingTurnsOnOneGpuAreNotAStraggler(@TempDir Path tmp) throws Exception {
    Path logs = Path.of("src/test/resources/replayed/h3_mix");
    ReportResult r = TestSupport.report(tmp.resolve("out"), logs.toString());
    assertEquals(3 * 262, r.data().overview().records());
    assertEquals(78, r.data().overview().excluded().get("cpu_timing"),
        "the send/receive-to-self parts of AlltoAll are CPU-timed");
    StragglerResult s = r.data().stragglers();
    assertEquals(158, s.alignedCollectives(), "every collective lined up across the 3 ranks");
    assertEquals(0, s.incompleteCollectives());
    // The three processes shared one GPU over loopback: they take turns being last, so the
    // late collectives are spread over all three and nobody is singled out.
    assertTrue(s.suspects().isEmpty(), s.suspects().toString());
    for (RankLateness rank : s.ranks()) {
      assertTrue(rank.lateShare() > 0.2 && rank.lateShare() < 0.5, rank.toString());
      assertEquals(0, rank.clockOffsetUs(), 50, "one GPU, one clock");
    }
  }
}
