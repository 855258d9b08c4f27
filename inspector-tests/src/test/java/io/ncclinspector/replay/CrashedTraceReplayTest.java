package io.ncclinspector.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.testsupport.TestData;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import io.ncclinspector.testsupport.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * h2_graph is a run that hung in CUDA-graph replay and was killed: its trace ends mid-line with no
 * finalize. Replaying it must report the broken line (file and line number) and still write every
 * record, closing what was in flight with the timing it had.
 */
class CrashedTraceReplayTest {
  @TempDir Path out;
  @RegisterExtension final LogCapture logs = new LogCapture();

  @Test
  void aTraceCutMidLineIsReportedAndReplayedToTheEnd() throws IOException {
    logs.expect("WARN", ":1688: not a JSON object");
    Path trace = TestData.traceFiles("h2_graph").get(0);
    InspectorConfig config = InspectorConfig.builder().dumpDirectory(out).minMessageBytes(0)
        .requireKernelTiming(false).build();
    ReplayResult r = TraceReplayer.replay(trace, config, "vm");
    assertFalse(r.complete());
    assertEquals(1, r.problems().size(), r.problems()::toString);
    assertTrue(r.problems().get(0).startsWith(trace + ":1688:"), r.problems().get(0));
    List<JsonNode> records = ReferenceConformanceTest.readLines(r.outputFile().orElseThrow());
    assertEquals(r.recordsWritten(), records.size());
    long graphReplays = records.stream().filter(n -> n.at("/coll_perf/coll").asText().equals("AllReduce")).count();
    assertEquals(17, graphReplays, "one record per Coll event, graph replays included");
    long graphLaunched = records.stream()
        .filter(n -> n.at("/coll_perf/coll_flags").toString().contains("graph_launched")).count();
    assertEquals(15, graphLaunched, "the 15 Coll events whose CollApi parent was captured into the graph");
    long flushed = records.stream().filter(n -> n.at("/coll_perf/coll_flags").toString().contains("flushed")).count();
    assertEquals(r.counters().get("flushed_at_close"), flushed);
    assertTrue(flushed > 0, "the collectives in flight when the run died are closed at close");
    assertEquals(0, r.counters().totalDrops(), r.counters().drops()::toString);
  }
}
