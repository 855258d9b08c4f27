package io.ncclinspector.examples.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * examples/analyze-gpu-validation.py against files written by the Java side's own writers, so that
 * a renamed field breaks here rather than after a GPU run; and the script's own self-test.
 */
class AnalysisScriptTest {
  @TempDir
  Path dir;

  static Path script() {
    for (Path p : new Path[] {Path.of("analyze-gpu-validation.py"), Path.of("examples/analyze-gpu-validation.py")}) {
      if (Files.isRegularFile(p)) {
        return p.toAbsolutePath();
      }
    }
    throw new IllegalStateException("analyze-gpu-validation.py not found");
  }

  static boolean pythonAvailable() {
    try {
      return new ProcessBuilder("python3", "--version").redirectErrorStream(true).start().waitFor(20, TimeUnit.SECONDS);
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  static String run(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("python3", script().toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    String text = new String(out, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), text);
    return text;
  }

  @Test
  void selfTest() throws Exception {
    assumeTrue(pythonAvailable(), "python3 is not installed");
    assertTrue(run("--self-test").contains("self-test passed"));
  }

  @Test
  void readsWhatTheProgramsWrite() throws Exception {
    assumeTrue(pythonAvailable(), "python3 is not installed");
    Path part = Files.createDirectories(dir.resolve("gpu-validation-part1"));
    Path repro = Files.createDirectories(part.resolve("reproducer"));
    /* 2 AllReduce of 1 MiB, the AlltoAll, 2 more: ours withholds one after it and marks the other's time a lower
       bound (10 us under its 15 us kernel), the reference gets both wrong */
    for (String mode : List.of("on", "reference")) {
      CallCounter c = new CallCounter(2);
      List<CallReport.CallSample> samples = new ArrayList<>();
      Map<Long, List<RecordView>> ours = new HashMap<>();
      List<String> refLines = new ArrayList<>();
      List<KernelWindows.Window> windows = new ArrayList<>();
      List<Cupti.Kernel> kernels = new ArrayList<>();
      Operation[] ops = {Operation.ALL_REDUCE, Operation.ALL_REDUCE, Operation.ALL_TO_ALL, Operation.ALL_REDUCE,
          Operation.ALL_REDUCE};
      for (int i = 0; i < ops.length; i++) {
        CallCounter.CallId id = c.next(ops[i]);
        long t0 = 1_000_000L * (i + 1);
        samples.add(new CallReport.CallSample(id, "cycle", 1 << 20, i, CallReportTest.timing(30, t0)));
        windows.add(new KernelWindows.Window(id.call(), t0, t0 + 100_000));
        kernels.add(new Cupti.Kernel("ncclDevKernel_X", t0 + 10_000, t0 + 25_000, 0, 1, 1, 0));
        if (ops[i] == Operation.ALL_REDUCE) {
          boolean after = id.afterSelfP2p();
          ours.put(id.call(), List.of(after && i == 3
              ? CallReportTest.rec("AllReduce", id.call(), 0, "NONE", "KERNEL_CHANNEL_DESYNC", "QUARANTINED")
              : after ? CallReportTest.rec("AllReduce", id.call(), 5, "KERNEL_GPU", "NONE", "DESYNC_CHANNELS_EXCLUDED")
              : CallReportTest.rec("AllReduce", id.call(), 12, "KERNEL_GPU", "NONE")));
          refLines.add(CallReportTest.refLine("coll", "AllReduce", id.collSequence(), after ? 231 : 12, "kernel_gpu", 0,
              -1));
        }
      }
      ReferenceOutput ref = ReferenceOutput.parse(refLines, List.of());
      List<CallReport.CallRow> rows = CallReport.join("reproducer", mode, 0, samples, mode.equals("on") ? ours : null,
          mode.equals("reference") ? ref : null, KernelWindows.assign(windows, kernels), CallReport.Tolerance.DEFAULT);
      CallReport.writeJsonLines(repro.resolve("calls-reproducer-" + mode + "-rank0.jsonl"), rows);
    }
    /* a sweep round as NcclBenchmark writes it: the rows are SweepRow records */
    ObjectMapper json = new ObjectMapper();
    Path round = Files.createDirectories(part.resolve("sweep/round-1"));
    for (String mode : List.of("off", "on", "reference")) {
      double us = mode.equals("off") ? 100 : mode.equals("on") ? 101 : 100.5;
      NcclBenchmark.SweepRow row = new NcclBenchmark.SweepRow(0, "before", "AllReduce", 4L << 20, 10, us, 6, us + 9,
          NcclBenchmark.busBandwidth(4L << 20, us, Operation.ALL_REDUCE, 2), 20, us - 2,
          NcclBenchmark.busBandwidth(4L << 20, us - 2, Operation.ALL_REDUCE, 2), null, 10, 0,
          mode.equals("on") ? 97.0 : null, mode.equals("on") ? 43.2 : null);
      Map<String, Object> res = new LinkedHashMap<>();
      res.put("program", "NcclBenchmark");
      res.put("run", "sweep");
      res.put("mode", mode);
      res.put("rows", List.of(row));
      json.writeValue(round.resolve("results-" + mode + "-rank0.json").toFile(), res);
    }
    String md = run(part.toString());
    assertTrue(md.contains("| before | AllReduce | 1 MiB | 2 | 30.0 | 15.0 | 12.0 | 2 / 0 / 0 / 0 / 0 / 0 | 15.0 | 12.0 | "
        + "2 / 0 / 0 / 0 |"), md);
    assertTrue(md.contains("| after | AllReduce | 1 MiB | 2 | 30.0 | 15.0 | 5.0 | 0 / 1 / 0 / 1 / 0 / 0 | 15.0 | 231.0 | "
        + "0 / 2 / 0 / 0 |"), md);
    assertTrue(md.contains("| reproducer | after | collective | 2 | 0 | 1 | 0 | 1 |"), md);
    assertTrue(md.contains("KERNEL_CHANNEL_DESYNC"), md);
    assertTrue(md.contains("| AllReduce | 4 MiB | "), md);
    assertTrue(md.contains("| 100.0 | +1.00 | +0.50 | +0.50 |"), md);
  }
}
