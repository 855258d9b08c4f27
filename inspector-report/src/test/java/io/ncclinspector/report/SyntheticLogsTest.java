package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ncclinspector.report.synthetic.LogFormat;
import io.ncclinspector.report.synthetic.SyntheticConfig;
import io.ncclinspector.report.synthetic.SyntheticResult;
import io.ncclinspector.report.synthetic.Workload;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SyntheticLogsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void sameSeedSameFilesAndTheRecordCountIsKnownInAdvance(@TempDir Path tmp) throws Exception {
    SyntheticConfig a = SyntheticConfig.builder(tmp.resolve("a")).iterations(25).seed(9).build();
    SyntheticConfig b = SyntheticConfig.builder(tmp.resolve("b")).iterations(25).seed(9)
        .threads(1).build();
    SyntheticResult ra = TestSupport.generate(a);
    SyntheticResult rb = TestSupport.generate(b);
    assertEquals(a.expectedRecords(), ra.records());
    assertEquals(ra.records(), rb.records());
    for (int i = 0; i < ra.files().size(); i++) {
      assertArrayEquals(Files.readAllBytes(ra.files().get(i)), Files.readAllBytes(rb.files()
          .get(i)), "thread count must not change the output");
    }
  }

  @Test
  void targetRecordsGivesAtLeastThatMany(@TempDir Path tmp) throws Exception {
    SyntheticConfig c = SyntheticConfig.builder(tmp).targetRecords(5000).build();
    assertTrue(c.expectedRecords() >= 5000);
    assertTrue(c.expectedRecords() < 5000 + 200, "not much more: " + c.expectedRecords());
  }

  @Test
  void writesEachProducersFields(@TempDir Path tmp) throws Exception {
    TestSupport.generate(SyntheticConfig.builder(tmp.resolve("ref")).nodes(1).gpusPerNode(2)
        .workload(Workload.WORLD_ALLREDUCE).iterations(3).format(LogFormat.REFERENCE).build());
    JsonNode ref = JSON.readTree(Files.readAllLines(tmp.resolve("ref/node00-pid10000.log"))
        .get(0));
    assertEquals(16, ref.get("header").get("id").asText().length(), "0x + 14 hex digits");
    assertTrue(!ref.get("coll_perf").has("coll_exec_time_ns")
        && !ref.get("metadata").has("profiler_interface_version"));

    TestSupport.generate(SyntheticConfig.builder(tmp.resolve("ours")).nodes(1).gpusPerNode(2)
        .workload(Workload.WORLD_ALLREDUCE).iterations(3).gzip(true).build());
    try (var in = new java.util.zip.GZIPInputStream(Files.newInputStream(
        tmp.resolve("ours/node00-pid10000.log.gz")))) {
      String first = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")[0];
      JsonNode ours = JSON.readTree(first);
      assertEquals(18, ours.get("header").get("id").asText().length());
      JsonNode p = ours.get("coll_perf");
      assertTrue(p.get("coll_gpu_start_ns").asLong() > 0);
      assertEquals(p.get("coll_exec_time_ns").asLong() / 1000, p.get("coll_exec_time_us")
          .asLong());
      assertEquals(p.get("coll_exec_time_ns").asLong(), p.get("coll_gpu_span_ns").asLong());
    }
  }

  @Test
  void commandLine(@TempDir Path tmp) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8);
    int rc = SyntheticLogs.run(new String[] {"--out", tmp.toString(), "--iterations", "5",
        "--nodes", "1", "--gpus-per-node", "2", "--clock-offset-us", "0=12.5"}, ps, ps);
    assertEquals(0, rc, out.toString(StandardCharsets.UTF_8));
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("records in 2 files"));
    assertEquals(2, rcFiles(tmp));
    assertEquals(2, SyntheticLogs.run(new String[] {"--out", tmp.toString(),
        "--clock-offset-us", "nonsense"}, ps, ps));
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("--clock-offset-us expects NODE=MICROSECONDS"),
        "the error and the usage go to the command's own stream");
  }

  private static long rcFiles(Path dir) {
    try (var s = Files.list(dir)) {
      return s.count();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void rejectsImpossibleConfigurations(@TempDir Path tmp) {
    assertThrows(IllegalArgumentException.class, () -> SyntheticConfig.builder(tmp)
        .straggler(8, 0.3, 1).build(), "rank 8 of 8");
    assertThrows(IllegalArgumentException.class, () -> SyntheticConfig.builder(tmp)
        .straggler(1, 1.5, 1).build());
    assertThrows(IllegalArgumentException.class, () -> SyntheticConfig.builder(tmp).nodes(0)
        .build());
    assertEquals(List.of(), SyntheticConfig.builder(tmp).build().nodeClockOffsetsNanos());
  }
}
