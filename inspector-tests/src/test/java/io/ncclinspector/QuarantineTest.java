package io.ncclinspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.testkit.SyntheticTrace;
import io.ncclinspector.replay.ReplayResult;
import io.ncclinspector.replay.TraceReplayer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Records built from bad GPU timestamps are written apart, with the reason, and counted. */
class QuarantineTest {
  @TempDir Path dir;

  @Test
  void badGpuTimestampsGoToTheQuarantineFile() throws Exception {
    SyntheticTrace s = new SyntheticTrace().init(1, 0x77L, 0, 2);
    long t0 = 1_795_942_870_000_000_000L;
    int good = s.coll(1, "AllReduce", 0, 1 << 20, "ncclFloat32", 1);
    int ch = s.kernelChannel(1, good, 0, t0);
    s.stop(good).kernelChannelDone(ch, t0 + 5000);
    int reversed = s.coll(1, "AllReduce", 1, 1 << 20, "ncclFloat32", 1);
    int ch2 = s.kernelChannel(1, reversed, 0, t0 + 9000);
    s.stop(reversed).kernelChannelDone(ch2, t0 + 1000);
    int zero = s.coll(1, "AllGather", 0, 1 << 20, "ncclInt8", 1);
    int ch3 = s.kernelChannel(1, zero, 0, 0);
    s.stop(zero).kernelChannelDone(ch3, t0);
    s.fini(1);
    ReplayResult r = TraceReplayer.replay(s.write(dir.resolve("t"), 42),
        InspectorConfig.builder().dumpDirectory(dir.resolve("out")).build(), "host");
    Path out = r.outputFile().orElseThrow();
    List<String> normal = Files.readAllLines(out);
    Path quarantine = out.resolveSibling("host-pid42.quarantine.log");
    List<String> quarantined = Files.readAllLines(quarantine);
    assertEquals(1, normal.size(), normal::toString);
    assertTrue(normal.get(0).contains("\"coll_timing_source\":\"kernel_gpu\""));
    assertEquals(2, quarantined.size(), quarantined::toString);
    assertTrue(quarantined.get(0).contains("\"coll_quarantine_reason\":\"gpu_timestamp_reversed\""), quarantined.get(0));
    assertTrue(quarantined.get(1).contains("\"coll_quarantine_reason\":\"gpu_timestamp_zero\""), quarantined.get(1));
    assertTrue(quarantined.get(1).contains("\"quarantined\""), "flagged");
    assertEquals(1, r.counters().get("gpu_timestamp_reversed"));
    assertEquals(1, r.counters().get("gpu_timestamp_zero"));
    assertEquals(0, r.counters().get("no_gpu_timing"), "quarantine is not the GPU-timing filter");
    assertEquals(2, r.counters().quarantined().values().stream().mapToLong(Long::longValue).sum());
  }
}
