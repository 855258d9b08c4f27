package io.ncclinspector;

import io.ncclinspector.testsupport.TestData;
import io.ncclinspector.testsupport.Await;
import io.ncclinspector.replay.TracePlayer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotTest {
  @TempDir Path dir;

  @Test
  void aSnapshotOfTheH3MixRunAddsUpAndSerializes() throws Exception {
    try (NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir.resolve("out"))
        .minMessageBytes(0).requireKernelTiming(false).build())) {
      aSnapshotOfTheH3MixRun(inspector);
    }
  }

  private void aSnapshotOfTheH3MixRun(NcclInspector inspector) throws Exception {
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger taken = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread snapshots = new Thread(() -> {
      long last = 0;
      while (running.get()) {
        try {
          InspectorSnapshot s = inspector.snapshot();
          if (s.totalOperations() < last) {
            throw new AssertionError("operations went backwards");
          }
          last = s.totalOperations();
          taken.incrementAndGet();
        } catch (Throwable t) {
          failure.set(t);
          return;
        }
      }
    });
    snapshots.start();
    try (TracePlayer d = TracePlayer.open(inspector, TestData.traceFiles("h3_mix").get(0))) {
      d.playAll();
    }
    Await.until(() -> inspector.snapshot().totalOperations() == 262);
    running.set(false);
    snapshots.join();
    assertEquals(null, failure.get());
    assertTrue(taken.get() > 0);

    InspectorSnapshot s = inspector.snapshot();
    assertEquals(1, s.communicators().size());
    CommunicatorSnapshot c = s.communicators().get(0);
    assertEquals(0xb8f4ef99b0e2c17cL, c.communicator().id());
    assertEquals(262, c.operations());
    assertEquals(c.operations(), c.classes().stream().mapToLong(ClassStatistics::count).sum());
    assertEquals(c.bytes(), c.classes().stream().mapToLong(ClassStatistics::bytes).sum());
    assertEquals(16, c.lastRecords().size());
    ClassStatistics big = c.classes().stream()
        .filter(k -> k.operationClass().operation().equals("AllReduce") && k.operationClass().sizeBucketBytes() == 64L << 20)
        .findFirst().orElseThrow();
    assertTrue(big.executionNanos().p50() > 0 && big.executionNanos().p50() <= big.executionNanos().p99());
    assertTrue(big.busBandwidthGbs().p50() > 0);
    assertEquals(s.counters().get("no_gpu_timing"), 0);

    Path file = dir.resolve("snapshot.json");
    inspector.snapshot().writeJson(file);
    JsonNode json = new ObjectMapper().readTree(Files.readString(file));
    assertEquals(262, json.at("/communicators/0/operations").asLong());
    assertTrue(json.at("/communicators/0/classes/0/executionNanos/p99").isNumber());
    assertTrue(json.at("/counters/drops").has("ring_full"));
    assertTrue(json.at("/takenAt").isTextual());
    inspector.close();
    assertTrue(inspector.snapshot().communicators().stream().noneMatch(CommunicatorSnapshot::live));
  }

  @Test
  void exportingTheRecordStreamForAWhile() throws Exception {
    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir.resolve("out"))
        .minMessageBytes(0).requireKernelTiming(false).jsonOutput(false).build());
    Path export = dir.resolve("export/records.jsonl");
    try (inspector; TracePlayer d = TracePlayer.open(inspector, TestData.traceFiles("h2_coal").get(0))) {
      /* Play until some records completed, and have them delivered before the export starts (not
       * raced against it). */
      long before = 0;
      while (before == 0 && d.remaining() > d.size() / 4) {
        d.play(d.size() / 16);
        long flushes = inspector.flushesMade();
        inspector.flush();
        Await.until(() -> inspector.flushesMade() > flushes);
        before = inspector.status().records().received();
      }
      assertTrue(before > 0 && before < 66, "records in the first half: " + before);
      try (ListenerRegistration exporting = inspector.exportRecords(export, CommunicatorSelector.all())) {
        d.playAll();
        Await.until(() -> inspector.status().records().received() == 66);
        /* Every record received after the export started has reached it (the listener thread may
         * still be on its way when the inspector has them all: CI, 58 of 65 without this wait). */
        long expected = 66 - before;
        Await.until(() -> exporting.delivered() >= expected);
      } /* closing the export writes what is queued */
      List<String> lines = Files.readAllLines(export);
      assertEquals(66 - before, lines.size(), "only what completed while exporting, all of it");
      assertTrue(lines.stream().allMatch(l -> l.startsWith("{\"header\"") && l.contains("\"coll_perf\"")));
    }
  }
}
