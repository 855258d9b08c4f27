package io.ncclinspector.examples.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReferenceOutputTest {
  @TempDir
  Path dir;

  static Path testdata() {
    String p = System.getProperty("nccl.inspector.testdata.dir");
    for (Path c : new Path[] {p == null ? null : Path.of(p), Path.of("../testdata"), Path.of("testdata")}) {
      if (c != null && Files.isDirectory(c)) {
        return c;
      }
    }
    throw new IllegalStateException("test data not found");
  }

  @Test
  void readsWhatTheReferenceWroteForOneProcess() throws Exception {
    /* NVIDIA's Inspector's output of rank 0 of the n2_truth recording (2 x H200, NVLink) */
    Path gz = testdata().resolve("traces/n2_truth/inspector/vm-pid585.log.gz");
    try (InputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
      Files.copy(in, dir.resolve("vm-pid585.log"));
    }
    Files.writeString(dir.resolve("vm-pid999.log"), "{}\n"); /* another process's file: not read */
    ReferenceOutput out = ReferenceOutput.read(dir, 585);
    assertEquals(1, out.files().size());
    assertEquals(254, out.records().size());
    assertEquals(0, out.damagedLines());
    ReferenceOutput.RefRecord ar5 = out.collective("AllReduce", 5);
    assertNotNull(ar5);
    assertEquals(16_777_216, ar5.messageBytes());
    assertEquals(193, ar5.execMicros());
    assertTrue(ar5.gpuTimed());
    assertEquals(0, ar5.rank());
    assertNull(out.collective("AllReduce", 9999));
    assertEquals(132, out.records().stream().filter(ReferenceOutput.RefRecord::isP2p).count());
    /* no start times in this (non-verbose) output: point-to-point records go by the reference's numbers */
    List<ReferenceOutput.RefRecord> first = out.p2p(1, 2, 0, 0);
    assertEquals(2, first.size());
    assertTrue(first.stream().allMatch(r -> r.sequence() == 1 || r.sequence() == 2));
    assertEquals(0, ReferenceOutput.read(dir, 4242).records().size());
    assertEquals(0, ReferenceOutput.read(dir.resolve("absent"), 585).records().size());
  }

  @Test
  void damagedAndRepeatedLinesAreCountedNotKept() {
    String ok = CallReportTest.refLine("coll", "AllReduce", 3, 10, "kernel_gpu", 0, -1);
    ReferenceOutput out = ReferenceOutput.parse(List.of(ok, ok, "{\"header\":{}}", "{\"coll_perf\":{\"coll\":\"Allre",
        ""), List.of());
    assertEquals(1, out.records().size());
    assertEquals(1, out.duplicates());
    assertEquals(2, out.damagedLines());
  }
}
