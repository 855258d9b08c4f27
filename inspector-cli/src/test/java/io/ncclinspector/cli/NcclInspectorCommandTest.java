package io.ncclinspector.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.testsupport.LogCapture;
import io.ncclinspector.testsupport.TestData;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The command line as a user types it: help, versions, typos, bad numbers, hostile files, bad output places. */
class NcclInspectorCommandTest {
  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    out.reset();
    err.reset();
    return NcclInspectorCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String stdout() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String stderr() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private static Path trace() throws Exception {
    return TestData.traceFiles("h3_mix").get(0);
  }

  @Test
  void helpAndVersionForEveryCommand() {
    assertEquals(0, run("--help"));
    assertTrue(stdout().contains("replay") && stdout().contains("report"), stdout());
    assertEquals(0, run("replay", "--help"));
    assertTrue(stdout().contains("--min-size") && stdout().contains("Exit status"), stdout());
    assertEquals(0, run("report", "--help"));
    assertTrue(stdout().contains("--out"), stdout());
    assertTrue(stdout().startsWith("Usage: nccl-inspector report [-hqV]"), "the program named once: " + stdout());
    assertEquals(0, run("--version"));
    assertTrue(stdout().startsWith("nccl-inspector "), stdout());
    assertEquals(0, run("replay", "--version"));
    assertEquals(0, run("help", "replay"));
    assertEquals(2, run());
    assertTrue(stderr().contains("give a command"), stderr());
    assertEquals(2, run("replya"));
  }

  @Test
  void typosAndBadNumbersAreRefusedNotGuessed() throws Exception {
    assertEquals(2, run("report", dir.toString(), "--outt", "x", "--out", dir.resolve("r").toString()));
    assertTrue(stderr().contains("Unknown option: '--outt'"), stderr());
    assertEquals(2, run("report", dir.toString(), "--out", "--outt"));
    assertTrue(stderr().contains("Unknown option: '--outt'"), stderr());
    assertFalse(Files.exists(dir.resolve("r")) || Files.exists(Path.of("--outt")), "no report written anywhere");
    assertEquals(2, run("replay", "--trace", trace().toString(), "--dump-dir", dir.toString(), "--min-size", "-1"));
    assertTrue(stderr().contains("--min-size must be 0 or more bytes, got -1"), stderr());
    assertEquals(2, run("replay", "--trace", trace().toString(), "--dump-dir", dir.toString(), "--min-size", "lots"));
    assertEquals(2, run("report", dir.toString(), "--out", dir.resolve("r").toString(), "--memory-limit", "garbage"));
    assertTrue(stderr().startsWith("nccl-inspector report: memory limit must look like 512MB or 8GB, got 'garbage'"),
        "exit 2 and the program named once: " + stderr());
    assertEquals(2, run("report", dir.toString(), "--out", dir.resolve("r").toString(), "--threads", "99999"));
    assertTrue(stderr().contains("threads must be 1 to "), stderr());
    assertEquals(2, run("replay", "--trace", trace().toString(), "--dump-dir", dir.toString(), "--tracee", "x"));
    assertEquals(2, run("replay", "--trace", trace().toString(), "--dump-dir", dir.toString(), "--hostname", "../etc"));
    assertEquals(2, run("replay", "--dump-dir", dir.toString()));
    assertTrue(stderr().contains("--trace"), stderr());
    assertFalse(Files.exists(dir.resolve("replay-pid1061.log")), "nothing ran");
  }

  @Test
  void filesThatAreNotTracesFailWithTheirName() throws Exception {
    /* "no NCCL communicator" only if no earlier test left a communicator alive (a cut trace does) */
    logs.expect("WARN", "line longer than 1 MiB").allow("WARN", "no NCCL communicator");
    Path out = dir.resolve("out");
    assertEquals(1, run("replay", "--trace", "/dev/zero", "--dump-dir", out.toString()));
    assertTrue(stderr().contains("/dev/zero: no usable event"), stderr());
    Path folder = Files.createDirectory(dir.resolve("folder"));
    assertEquals(1, run("replay", "--trace", folder.toString(), "--dump-dir", out.toString()));
    assertTrue(stderr().contains(folder + ": is a directory"), stderr());
    Path empty = Files.write(dir.resolve("trace-pid9.jsonl.gz"), new byte[0]);
    assertEquals(1, run("replay", "--trace", empty.toString(), "--dump-dir", out.toString()));
    assertTrue(stderr().contains(empty + ": empty"), stderr());
  }

  @Test
  void anUnwritableOutputIsAFailureNotASuccess() throws Exception {
    logs.expect("ERROR", "cannot write NCCL Inspector output").expect("ERROR", "output lost")
        .expect("ERROR", "cannot write NCCL Inspector quarantine output");
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    assertEquals(1, run("replay", "--trace", trace().toString(), "--dump-dir", file.toString(), "--min-size", "0"));
    assertTrue(stderr().contains("record(s) NOT written"), stderr());
    assertTrue(stdout().contains("0 records -> (no file)"), stdout());
  }

  @Test
  void takenOutputNamesAreLeftAloneAndTwoTracesOfOnePidGetTwoFiles() throws Exception {
    Path out = dir.resolve("out");
    Files.createDirectories(out.resolve("replay-pid1061.log")); /* a directory where the log would go */
    assertEquals(0, run("replay", "--trace", trace().toString(), "--trace", trace().toString(), "--dump-dir",
        out.toString(), "--min-size", "0"), stderr());
    assertTrue(Files.isDirectory(out.resolve("replay-pid1061.log")));
    List<String> first = Files.readAllLines(out.resolve("replay-pid1061-1.log"));
    List<String> second = Files.readAllLines(out.resolve("replay-pid1061-2.log"));
    assertEquals(first.size(), second.size());
    assertTrue(stdout().contains("-> " + out.resolve("replay-pid1061-1.log").toAbsolutePath()), stdout());
  }

  @Test
  void aTruncatedTraceIsReplayedUpToTheCutAndSaysWhere() throws Exception {
    logs.expect("WARN", "ends early after line");
    byte[] bytes = Files.readAllBytes(trace());
    Path cut = Files.write(dir.resolve("trace-pid1061.jsonl.gz"), java.util.Arrays.copyOf(bytes, bytes.length / 2));
    assertEquals(0, run("replay", "--trace", cut.toString(), "--dump-dir", dir.resolve("out").toString(),
        "--min-size", "0"), stderr());
    assertTrue(stdout().contains("ends early after line"), stdout());
    assertTrue(stdout().contains("(trace ends without finalize: a crashed run)"), stdout());
    try (Stream<Path> files = Files.list(dir.resolve("out"))) {
      assertEquals(1, files.filter(f -> f.toString().endsWith(".log")).count());
    }
  }

  private static List<String> traceLines() throws Exception {
    try (java.io.InputStream in = new java.util.zip.GZIPInputStream(Files.newInputStream(trace()))) {
      return List.of(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n"));
    }
  }

  private static byte[] gzip(List<String> lines) throws Exception {
    java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream g = new java.util.zip.GZIPOutputStream(b)) {
      g.write((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    }
    return b.toByteArray();
  }

  @Test
  void aDamagedGzipMemberFailsTheReplayAndSaysWhereAndWhatWasLost() throws Exception {
    logs.expect("WARN", "the compressed stream is damaged after line").allow("WARN", "no NCCL communicator");
    List<String> lines = traceLines();
    int half = lines.size() / 2;
    byte[] second = gzip(lines.subList(half, lines.size()));
    second[0] = 0; /* issue 21: replayed half the trace with exit 0, "a crashed run" */
    Path damaged = dir.resolve("trace-pid1061.jsonl.gz");
    Files.write(damaged, gzip(lines.subList(0, half)));
    Files.write(damaged, second, java.nio.file.StandardOpenOption.APPEND);
    assertEquals(1, run("replay", "--trace", damaged.toString(), "--dump-dir", dir.resolve("out").toString(),
        "--min-size", "0"));
    assertTrue(stdout().contains(half + " events") && stdout().contains("(trace damaged: replayed up to the damage)"),
        stdout());
    assertTrue(stderr().contains(damaged + ": the trace is damaged, the events after the damage were not replayed"),
        stderr());
    assertTrue(stderr().contains("compressed bytes not read"), stderr());
  }

  @Test
  void everySkippedTraceLineIsCounted() throws Exception {
    logs.expect("WARN", "not a JSON object").expect("WARN", "more unusable line(s) skipped (500 in all)");
    List<String> lines = new java.util.ArrayList<>(traceLines());
    for (int i = 0; i < 500; i++) {
      lines.add(10 + i * 3, "garbage " + i);
    }
    Path trace = Files.write(dir.resolve("trace-pid1061.jsonl.gz"), gzip(lines));
    assertEquals(0, run("replay", "--trace", trace.toString(), "--dump-dir", dir.resolve("out").toString(),
        "--min-size", "0"), stderr());
    assertTrue(stdout().contains("500 trace line(s) skipped (the first 100 listed above)"), stdout());
  }
}
