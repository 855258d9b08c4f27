package io.ncclinspector.jfr;

import io.ncclinspector.testsupport.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.replay.TracePlayer;
import io.ncclinspector.HangEvent;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.jfr.internal.JfrExporter;
import io.ncclinspector.testkit.SyntheticTrace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import io.ncclinspector.testsupport.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The JFR events, read back from a real recording file with {@link RecordingFile}. */
class JfrEventsTest {
  private static final long T0 = 1_795_942_870_000_000_000L;
  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();

  /** 60 AllReduces, #50 twenty times slower; then a ReduceScatter whose second channel is late. */
  private Path trace(String name) throws Exception {
    SyntheticTrace s = new SyntheticTrace().init(1, 0x51L, 0, 2);
    Random rnd = new Random(5);
    for (int i = 0; i < 60; i++) {
      long duration = i == 50 ? 200_000 : 10_000 + (long) (rnd.nextGaussian() * 500);
      int op = s.coll(1, "AllReduce", i, 1 << 20, "ncclFloat32", 1);
      int ch = s.kernelChannel(1, op, 0, T0 + i * 1_000_000L);
      s.stop(op).kernelChannelDone(ch, T0 + i * 1_000_000L + duration);
    }
    int op = s.coll(1, "ReduceScatter", 77, 1 << 20, "ncclFloat32", 2);
    int ch0 = s.kernelChannel(1, op, 0, T0 + 100_000_000L);
    s.stop(op);
    int ch1 = s.kernelChannel(1, op, 1, T0 + 100_001_000L); /* driven only after the hang was seen */
    s.kernelChannelDone(ch0, T0 + 100_500_000L).kernelChannelDone(ch1, T0 + 100_600_000L).fini(1);
    return s.write(dir.resolve(name), 3);
  }


  /** Whether the recording so far has events that satisfy the condition (read from a dump of it). */
  private boolean recorded(Recording r, java.util.function.Predicate<List<RecordedEvent>> condition) {
    try {
      Path snapshot = Files.createTempFile(dir, "so-far", ".jfr");
      r.dump(snapshot);
      return condition.test(RecordingFile.readAllEvents(snapshot));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The periodic events of the 60 AllReduces, once JFR has taken them. */
  private static boolean periodicSeen(List<RecordedEvent> events) {
    return named(events, JfrEvents.OPERATION_STATISTICS).stream().anyMatch(e -> e.getString("operation")
        .equals("AllReduce") && e.getLong("count") == 60)
        && named(events, JfrEvents.INSPECTOR_STATUS).stream().anyMatch(e -> e.getLong("recordsReceived") >= 60);
  }

  /** Plays the trace; with a recording, waits until it has the periodic events of the AllReduces. */
  private void run(Path trace, Recording periodic) throws Exception {
    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir.resolve("out"))
        .jsonOutput(false).hangTimeout(Duration.ofMillis(100)).build());
    List<HangEvent> hangs = new CopyOnWriteArrayList<>();
    List<SlowCollectiveEvent> slow = new CopyOnWriteArrayList<>();
    inspector.addListener(new InspectorListener() {
      @Override
      public void hangSuspected(HangEvent e) {
        hangs.add(e);
      }

      @Override
      public void slowCollective(SlowCollectiveEvent e) {
        slow.add(e);
      }
    });
    try (inspector; TracePlayer d = TracePlayer.open(inspector, trace)) {
      d.play(1 + 60 * 5 + 3); /* init; per AllReduce start, channel, stop, channel state, channel stop */
      Await.until(() -> !hangs.isEmpty() && !slow.isEmpty());
      if (periodic != null) {
        Await.until(() -> inspector.snapshot().totalOperations() == 60);
        Await.until(() -> recorded(periodic, JfrEventsTest::periodicSeen)); /* JFR's periods, 100 ms */
      }
      d.playAll();
    }
  }

  private static List<RecordedEvent> named(List<RecordedEvent> all, String name) {
    return all.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
  }

  @Test
  void eventsFollowTheRecordingSettings() throws Exception {
    logs.allow("WARN", "in flight for"); /* the trace's hang, also logged by the watchdog */
    Path file = dir.resolve("all.jfr");
    try (Recording r = new Recording()) {
      r.enable(JfrEvents.OPERATION);
      r.enable(JfrEvents.SLOW_COLLECTIVE);
      r.enable(JfrEvents.SUSPECTED_HANG);
      r.enable(JfrEvents.OPERATION_STATISTICS).withPeriod(Duration.ofMillis(100));
      r.enable(JfrEvents.INSPECTOR_STATUS).withPeriod(Duration.ofMillis(100));
      r.start();
      run(trace("a"), r);
      r.stop();
      r.dump(file);
    }
    List<RecordedEvent> events = RecordingFile.readAllEvents(file);

    List<RecordedEvent> ops = named(events, JfrEvents.OPERATION);
    assertEquals(61, ops.size());
    RecordedEvent first = ops.stream().filter(e -> e.getLong("sequence") == 0).findFirst().orElseThrow();
    assertEquals("AllReduce", first.getString("operation"));
    assertEquals("0x51", first.getString("communicatorId"));
    assertEquals(1 << 22, first.getLong("messageBytes"));
    assertEquals("RING", first.getString("algorithm"));
    assertTrue(first.getDuration("executionTime").toNanos() > 8_000);

    List<RecordedEvent> slow = named(events, JfrEvents.SLOW_COLLECTIVE);
    assertEquals(1, slow.size());
    assertEquals(50, slow.get(0).getLong("sequence"));
    assertEquals(200_000, slow.get(0).getDuration("executionTime").toNanos());
    assertTrue(slow.get(0).getDouble("ratio") > 15, slow.get(0).toString());
    assertTrue(Math.abs(slow.get(0).getDuration("baselineMedian").toNanos() - 10_000) < 1_300);
    long high = slow.get(0).getDuration("baselineHigh").toNanos();
    assertTrue(high > 10_000 && high < 13_000, slow.get(0).toString());
    assertEquals(5 * high, slow.get(0).getDuration("threshold").toNanos());
    assertEquals(50, slow.get(0).getInt("samples"));
    assertEquals("BEYOND_CLASS_RANGE", slow.get(0).getString("reason"));
    assertTrue(slow.get(0).getBoolean("delivered"));

    List<RecordedEvent> hangs = named(events, JfrEvents.SUSPECTED_HANG);
    assertEquals(1, hangs.size());
    assertEquals("ReduceScatter", hangs.get(0).getString("operation"));
    assertEquals(77, hangs.get(0).getLong("sequence"));
    assertEquals(1, hangs.get(0).getInt("channelsStarted"));
    assertTrue(hangs.get(0).getDuration("age").toMillis() >= 100);

    List<RecordedEvent> stats = named(events, JfrEvents.OPERATION_STATISTICS);
    assertTrue(stats.stream().anyMatch(e -> e.getString("operation").equals("AllReduce") && e.getLong("count") == 60
        && e.getLong("sizeBucket") == 1 << 22 && Math.abs(e.getDuration("executionP50").toNanos() - 10_000) < 1_000),
        stats.toString());
    List<RecordedEvent> status = named(events, JfrEvents.INSPECTOR_STATUS);
    assertTrue(status.stream().anyMatch(e -> e.getLong("recordsReceived") >= 60), status.toString());
  }

  /** Operations are handed to the exporter only while a recording has their event on. */
  @Test
  void theExporterWantsOperationsOnlyWhileARecordingHasTheirEvent() {
    JfrExporter exporter = new JfrExporter(() -> {
      throw new AssertionError("no snapshot is read here");
    });
    try (Recording other = new Recording()) {
      assertFalse(exporter.wantsOperations(), "no recording");
      other.disable(JfrEvents.OPERATION_STATISTICS);
      other.disable(JfrEvents.INSPECTOR_STATUS);
      other.start();
      assertFalse(exporter.wantsOperations(), "a recording with the settings' defaults (operations off)");
      try (Recording r = new Recording()) {
        r.disable(JfrEvents.OPERATION_STATISTICS);
        r.disable(JfrEvents.INSPECTOR_STATUS);
        r.enable(JfrEvents.OPERATION);
        r.start();
        assertTrue(exporter.wantsOperations(), "a recording with the operation event");
        r.stop();
      }
      assertFalse(exporter.wantsOperations(), "that recording stopped");
    } finally {
      exporter.close();
    }
  }

  @Test
  void perOperationEventsAreOffByDefaultAndOthersCanBeTurnedOff() throws Exception {
    logs.allow("WARN", "in flight for");
    Path file = dir.resolve("defaults.jfr");
    try (Recording r = new Recording()) {
      r.disable(JfrEvents.SUSPECTED_HANG);
      r.start();
      run(trace("b"), null);
      r.stop();
      r.dump(file);
    }
    List<RecordedEvent> events = RecordingFile.readAllEvents(file);
    assertEquals(List.of(), named(events, JfrEvents.OPERATION), "off unless a recording enables it");
    assertEquals(List.of(), named(events, JfrEvents.SUSPECTED_HANG), "disabled by the recording");
    assertEquals(1, named(events, JfrEvents.SLOW_COLLECTIVE).size(), "on by default");
    assertFalse(events.isEmpty());
  }
}
