package io.ncclinspector.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.SharedData;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TracePlayerTest {
  @TempDir Path dir;

  @Test
  void playsATraceOperationByOperation() throws Exception {
    try (NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir)
        .jsonOutput(false).minMessageBytes(0).requireKernelTiming(false).build())) {
      int total = 0;
      int calls = 0;
      try (TracePlayer player = TracePlayer.open(inspector, SharedData.traceFiles("h3_mix").get(0))) {
        int all = player.remaining();
        int first = player.playOperations(10);
        assertEquals(10, first);
        total += first;
        while (player.remaining() > 0) {
          int before = player.remaining();
          total += player.playOperations(25);
          assertTrue(player.remaining() < before, "progress");
        }
        calls = all;
        assertEquals(0, player.playOperations(5), "nothing left");
      }
      assertEquals(262, total, "every Coll/P2p start of the trace");
      assertTrue(calls > 262);
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (inspector.recordsReceived() < 262 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertEquals(262, inspector.recordsReceived());
    }
  }

  @Test
  void needsAnActiveInspector() throws Exception {
    NcclInspector off = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir).enabled(false).build());
    assertThrows(IllegalStateException.class, () -> TracePlayer.open(off, SharedData.traceFiles("h3_mix").get(0)));
  }
}
