package io.ncclinspector.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.testsupport.Await;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.testsupport.TestData;
import java.nio.file.Path;
import io.ncclinspector.testsupport.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class TracePlayerTest {
  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();

  @Test
  void playsATraceOperationByOperation() throws Exception {
    try (NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir)
        .jsonOutput(false).minMessageBytes(0).requireKernelTiming(false).build())) {
      int total = 0;
      int calls = 0;
      try (TracePlayer player = TracePlayer.open(inspector, TestData.traceFiles("h3_mix").get(0))) {
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
      Await.until(() -> inspector.status().records().received() >= 262);
      assertEquals(262, inspector.status().records().received());
    }
  }

  @Test
  void tagsSetBetweenPiecesApplyToTheOperationsOfTheNextPiece() throws Exception {
    Path trace = TestData.traceFiles("h3_mix").get(0);
    /* The trace's collectives in the order they start. */
    java.util.List<String> order = new java.util.ArrayList<>();
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    try (var in = new java.io.BufferedReader(new java.io.InputStreamReader(
        new java.util.zip.GZIPInputStream(java.nio.file.Files.newInputStream(trace))))) {
      String line;
      int ops = 0;
      while ((line = in.readLine()) != null) {
        var e = json.readTree(line);
        if (e.path("ev").asText().equals("start") && (e.path("type").asText().equals("Coll")
            || e.path("type").asText().equals("P2p"))) {
          order.add(e.path("type").asText().equals("Coll")
              ? e.get("func").asText() + "#" + e.get("seq").asLong() : "p2p#" + ops);
          ops++;
        }
      }
    }
    java.util.Map<String, Long> stepOf = new java.util.concurrent.ConcurrentHashMap<>();
    try (NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir)
        .jsonOutput(false).minMessageBytes(0).requireKernelTiming(false).build())) {
      inspector.addListener(new io.ncclinspector.InspectorListener() {
        @Override
        public void operationCompleted(io.ncclinspector.OperationRecord r) {
          if (r instanceof io.ncclinspector.CollectiveRecord) {
            stepOf.put(r.operation() + "#" + r.sequence(), r.tags().step());
          }
        }
      });
      try (TracePlayer player = TracePlayer.open(inspector, trace)) {
        for (long piece = 0; player.remaining() > 0; piece++) {
          inspector.step(piece);
          player.playOperations(10);
        }
      }
      inspector.clearStep();
    }
    int checked = 0;
    for (int i = 0; i < order.size(); i++) {
      Long step = stepOf.get(order.get(i));
      if (step != null) {
        assertEquals(i / 10, step.longValue(), order.get(i) + ", operation " + i);
        checked++;
      }
    }
    assertEquals(order.stream().filter(o -> !o.startsWith("p2p#")).count(), checked, "every collective checked");
  }

  @Test
  void needsAnActiveInspector() throws Exception {
    logs.expect("WARN", "no NCCL communicator reached the inspector");
    NcclInspector off = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir).enabled(false).build());
    assertThrows(IllegalStateException.class, () -> TracePlayer.open(off, TestData.traceFiles("h3_mix").get(0)));
    NcclInspector closed = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir).jsonOutput(false).build());
    closed.close();
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> TracePlayer.open(closed, TestData.traceFiles("h3_mix").get(0)));
    assertTrue(e.getMessage().contains("not active"), e.getMessage());
  }

  @Test
  void aSecondPlayerIsRefusedAndTheFirstPlaysOnIntact() throws Exception {
    Path trace = TestData.traceFiles("h3_mix").get(0);
    try (NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir)
        .jsonOutput(false).minMessageBytes(0).requireKernelTiming(false).build())) {
      try (TracePlayer first = TracePlayer.open(inspector, trace)) {
        first.playOperations(50);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> TracePlayer.open(inspector, trace));
        assertTrue(e.getMessage().contains("one TracePlayer or replay at a time"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> TraceReplayer.replay(trace,
            InspectorConfig.builder().dumpDirectory(dir).build(), "host"));
        first.playAll();
      }
      Await.until(() -> inspector.status().records().received() == 262);
      assertEquals(0, inspector.counters().get("stale_handle") + inspector.counters().get("invalid_handle"),
          "the first player's handles were left alone");
      try (TracePlayer again = TracePlayer.open(inspector, trace)) {
        assertEquals(0, again.play(0), "free again once the first is closed");
      }
    }
  }
}
