package io.ncclinspector.replay;

import io.ncclinspector.InspectorStatus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.testsupport.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The raw event recording round trip: record while replaying a shared trace, replay the recording,
 * and get the same output (every record, every field but the time it was written).
 */
class RecordingRoundTripTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"h2_coal", "h3_mix", "h2_dtypes"})
  void replayingARecordingGivesTheSameOutput(String scenario) throws IOException {
    Path original = TestData.traceFiles(scenario).get(0);
    InspectorConfig.Builder base = InspectorConfig.builder().minMessageBytes(0).requireKernelTiming(false)
        .verbose(true);
    ReplayResult first = TraceReplayer.replay(original,
        base.dumpDirectory(dir.resolve("out1")).traceDirectory(dir.resolve("recording")).build(), "vm");
    Path recording;
    try (var files = Files.list(dir.resolve("recording"))) {
      recording = files.findFirst().orElseThrow();
    }
    assertTrue(recording.getFileName().toString().matches("trace-pid\\d+\\.jsonl\\.gz"), recording::toString);
    ReplayResult second = TraceReplayer.replay(recording,
        base.dumpDirectory(dir.resolve("out2")).traceDirectory(null).build(), "vm");
    assertTrue(second.problems().isEmpty(), second.problems()::toString);
    assertEquals(first.callsMade(), second.callsMade(), "the recording holds exactly the calls NCCL made");
    assertEquals(first.callsMade(), second.traceEvents());
    List<JsonNode> a = withoutDumpTime(ReferenceConformanceTest.readLines(first.outputFile().orElseThrow()));
    List<JsonNode> b = withoutDumpTime(ReferenceConformanceTest.readLines(second.outputFile().orElseThrow()));
    assertTrue(a.size() > 10);
    assertEquals(a, b);
  }

  private static List<JsonNode> withoutDumpTime(List<JsonNode> lines) {
    lines.forEach(l -> ((ObjectNode) l.get("metadata")).remove("dump_timestamp_us"));
    return lines;
  }

  @org.junit.jupiter.api.Test
  void theRecordingIsBoundedAndTheOverflowCounted() throws IOException {
    Path original = TestData.traceFiles("h2_coal").get(0);
    InspectorConfig config = InspectorConfig.builder().dumpDirectory(dir.resolve("out")).minMessageBytes(0)
        .traceDirectory(dir.resolve("rec")).traceMaxBytes(2000).build();
    ReplayResult r = TraceReplayer.replay(original, config, "vm");
    InspectorStatus.Recording rec = r.recording().orElseThrow();
    TraceEvents events = new TraceReader().read(rec.file());
    assertEquals(rec.eventsWritten(), events.count());
    assertTrue(events.count() > 0 && events.count() < 15, "only about 2000 bytes: " + events.count());
    assertEquals(r.callsMade(), rec.eventsWritten() + rec.eventsDroppedAtLimit(), "the rest is counted");
  }
}
