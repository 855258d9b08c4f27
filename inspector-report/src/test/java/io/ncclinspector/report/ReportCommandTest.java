package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.ncclinspector.report.output.OutputFiles;
import io.ncclinspector.report.output.TableFiles;
import io.ncclinspector.report.synthetic.SyntheticConfig;
import io.ncclinspector.report.synthetic.Workload;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportCommandTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return ReportCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String stdout() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String stderr() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void writesTheReportAndSaysWhereItIs(@TempDir Path tmp) throws Exception {
    TestSupport.generate(SyntheticConfig.builder(tmp.resolve("logs")).nodes(2).gpusPerNode(2)
        .workload(Workload.WORLD_ALLREDUCE).iterations(300).straggler(3, 0.4, 1_000_000)
        .build());
    int rc = run(tmp.resolve("logs").toString(), "--out", tmp.resolve("out").toString(),
        "--quiet", "--size-buckets", "EXACT", "--late-threshold-us", "50", "--records", "core");
    assertEquals(0, rc, stderr());
    assertTrue(stdout().contains("1,200 records from 4 files (0 unusable lines skipped)"),
        stdout());
    assertTrue(stdout().contains("Parquet files, core columns)"), stdout());
    assertTrue(stdout().contains("straggler: rank 3 of "), stdout());
    assertTrue(stdout().contains("report: " + tmp.resolve("out").resolve("report.html")));
    assertEquals("", stderr(), "--quiet prints nothing on stderr");
    for (String f : OutputFiles.ALL) {
      // Every file, also those with nothing in them (a world AllReduce loop has no receive).
      assertTrue(Files.exists(tmp.resolve("out").resolve(f)), f);
    }
    JsonNode manifest = TableFiles.json().readTree(tmp.resolve("out/report.json").toFile());
    assertEquals("EXACT", manifest.get("options").get("size_bucketing").asText());
    assertEquals("core", manifest.get("imports").get("record_columns").asText());
    assertEquals(50.0, manifest.get("stragglers").get("late_threshold_us").asDouble());
    assertEquals(3, manifest.get("stragglers").get("suspects").get(0).get("rank").asInt());
    assertTrue(manifest.get("engine").get("extensions_loaded").toString()
        .contains("parquet (STATICALLY_LINKED)"));
  }

  @Test
  void usageErrorsExitWith2(@TempDir Path tmp) {
    assertEquals(2, run(tmp.toString()), "--out is required");
    assertTrue(stderr().contains("Missing required option: '--out=DIR'"), stderr());
    assertEquals(2, run("--out", tmp.toString()), "a log directory is required");
    assertEquals(2, run(tmp.toString(), "--out", tmp.toString(), "--clock-sync", "sometimes"));
    assertEquals(2, run(tmp.toString(), "--out", tmp.resolve("o").toString(), "--threads", "0"));
    assertEquals(2, run(tmp.toString(), "--out", tmp.resolve("o").toString(),
        "--late-threshold-us", "-1"));
    assertEquals(2, run(tmp.toString(), "--out", tmp.resolve("o").toString(), "--records",
        "some"));
    assertTrue(stderr().contains("Invalid value for option '--records'")
        && stderr().contains("'some'"), stderr());
  }

  @Test
  void threadsBeyondTheMachineAreRefusedBeforeAnythingStarts(@TempDir Path tmp) {
    // 99,999 DuckDB threads took the whole machine down (issue 21).
    assertEquals(2, run(tmp.toString(), "--out", tmp.resolve("o").toString(), "--threads",
        "99999"));
    assertTrue(stderr().contains("threads must be 1 to " + ReportOptions.maxThreads()
        + " (the processors of this machine), got 99999"), stderr());
    assertEquals(2, run(tmp.toString(), "--out", tmp.resolve("o").toString(), "--threads",
        Integer.toString(ReportOptions.maxThreads() + 1)));
    assertTrue(Files.notExists(tmp.resolve("o")), "no output directory, no staging directory");
  }

  @Test
  void aMalformedMemoryLimitIsACommandLineError(@TempDir Path tmp) {
    assertEquals(2, run(tmp.toString(), "--out", tmp.resolve("o").toString(), "--memory-limit",
        "garbage"));
    assertTrue(stderr().startsWith("nccl-inspector report: memory limit must look like 512MB or"
        + " 8GB, got 'garbage'"), stderr());
    assertTrue(Files.notExists(tmp.resolve("o")), "nothing written");
  }

  @Test
  void nothingToReadExitsWith1AndSaysWhy(@TempDir Path tmp) throws Exception {
    assertEquals(1, run(tmp.resolve("missing").toString(), "--out", tmp.resolve("o").toString()));
    assertTrue(stderr().contains("missing: no such file or directory"), stderr());
    Files.createDirectories(tmp.resolve("empty"));
    Files.writeString(tmp.resolve("empty/readme.txt"), "no logs here");
    assertEquals(1, run(tmp.resolve("empty").toString(), "--out", tmp.resolve("o").toString()));
    assertTrue(stderr().contains("no Inspector logs"), stderr());
  }

  @Test
  void helpExitsWith0() {
    assertEquals(0, run("--help"));
    assertTrue(stdout().startsWith("Usage: nccl-inspector report "), stdout());
    assertTrue(stdout().contains("--clock-sync"));
    assertTrue(stdout().contains("Exit status:"));
  }
}
