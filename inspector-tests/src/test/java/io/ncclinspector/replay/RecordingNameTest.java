package io.ncclinspector.replay;

import io.ncclinspector.InspectorStatus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.testsupport.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The raw event recording never follows a link planted at its predictable name, nor overwrites a recording. */
class RecordingNameTest {
  @TempDir Path dir;

  @Test
  void aLinkOrAnEarlierRecordingAtTheNameIsLeftAlone() throws Exception {
    Path rec = Files.createDirectories(dir.resolve("rec"));
    Path victim = Files.writeString(dir.resolve("victim"), "must stay\n");
    Files.createSymbolicLink(rec.resolve("trace-pid1061.jsonl.gz"), victim);
    Files.writeString(rec.resolve("trace-pid1061-1.jsonl.gz"), "an earlier recording");
    InspectorConfig config = InspectorConfig.builder().dumpDirectory(dir.resolve("out")).minMessageBytes(0)
        .traceDirectory(rec).processIdentity(new io.ncclinspector.ProcessIdentity("vm", 1061)).build();
    ReplayResult r = TraceReplayer.replay(TestData.traceFiles("h3_mix").get(0), config, "vm");
    InspectorStatus.Recording recording = r.recording().orElseThrow();
    assertEquals(rec.resolve("trace-pid1061-2.jsonl.gz").toAbsolutePath(), recording.file());
    assertTrue(recording.eventsWritten() > 0);
    assertEquals("must stay\n", Files.readString(victim));
    assertEquals("an earlier recording", Files.readString(rec.resolve("trace-pid1061-1.jsonl.gz")));
    assertEquals(recording.eventsWritten(), new TraceReader().read(recording.file()).count(),
        "every event counted written is in the file");
  }
}
