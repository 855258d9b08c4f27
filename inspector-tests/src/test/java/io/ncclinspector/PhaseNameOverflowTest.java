package io.ncclinspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.replay.TracePlayer;
import io.ncclinspector.testsupport.LogCapture;
import io.ncclinspector.testsupport.TestData;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21: {@code inspector.phase(name)} threw {@code IllegalStateException} into the application
 * after 65,535 distinct names, and then for every new name, even "". Past the limit every new name
 * is folded into the phase "(other)", counted, and said once. (Phase names are JVM-wide: this test
 * class runs in a JVM of its own, as every test class does here.)
 */
class PhaseNameOverflowTest {
  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();

  @Test
  void namesPastTheLimitAreFoldedIntoOneCountedPhaseNeverThrown() throws Exception {
    logs.expect("WARN", "more than 65534 distinct phase names in this JVM; phase 'one-too-many'");
    List<OperationRecord> records = new CopyOnWriteArrayList<>();
    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder()
        .dumpDirectory(dir.resolve("out")).minMessageBytes(0).requireKernelTiming(false).build());
    inspector.addListener(new InspectorListener() {
      @Override
      public void operationCompleted(OperationRecord r) {
        records.add(r);
      }
    });
    try (Phase p = inspector.phase("early")) {
      assertEquals("early", p.name());
    }
    for (int i = 0; i < 65_533; i++) {
      inspector.phase("name-" + i).close();
    }
    assertEquals(0, inspector.counters().get(EventCounters.PHASE_OTHER), "every id is given now");
    try (TracePlayer d = TracePlayer.open(inspector, TestData.traceFiles("h2_coal").get(0))) {
      try (Phase p = inspector.phase("one-too-many")) {
        assertEquals("one-too-many", p.name());
        d.play(d.size() / 2);
      }
      try (Phase named = inspector.phase("early"); Phase empty = inspector.phase("")) {
        d.playAll();
      }
    }
    inspector.close();
    assertEquals(2, inspector.counters().get(EventCounters.PHASE_OTHER), "'one-too-many' and ''");
    assertTrue(records.stream().anyMatch(r -> "(other)".equals(r.tags().phase())), "folded");
    assertTrue(records.stream().noneMatch(r -> "one-too-many".equals(r.tags().phase())));
    assertEquals(66, records.size(), "every record written");
    assertEquals(1, logs.find("WARN", "distinct phase names").size(), "said once");
  }
}
