package io.ncclinspector.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.testsupport.LogCapture;
import io.ncclinspector.testsupport.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Trace files as they arrive from users: cut off, empty, not a trace at all. */
class TraceReaderTest {
  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();

  /** A killed process's recording: the gzip stream stops in the middle. */
  @Test
  void aTruncatedGzipTraceIsReadUpToTheCutAndReplayed() throws Exception {
    logs.expect("WARN", "ends early after line");
    Path whole = TestData.traceFiles("h3_mix").get(0);
    TraceEvents all = new TraceReader().read(whole);
    byte[] bytes = Files.readAllBytes(whole);
    Path cut = Files.write(dir.resolve("trace-pid1061.jsonl.gz"), Arrays.copyOf(bytes, bytes.length * 6 / 10));

    TraceEvents prefix = new TraceReader().read(cut);
    assertTrue(prefix.count() > all.count() / 3 && prefix.count() < all.count(), "events: " + prefix.count());
    String where = prefix.cutShort().orElseThrow();
    assertTrue(where.startsWith(cut + ": the compressed stream ends early after line "), where);
    assertFalse(prefix.damaged(), "a file cut short holds nothing more");
    assertTrue(prefix.problems().contains(where));

    ReplayResult r = TraceReplayer.replay(cut, InspectorConfig.builder().dumpDirectory(dir.resolve("out"))
        .minMessageBytes(0).requireKernelTiming(false).build(), "vm");
    assertEquals(prefix.count(), r.traceEvents());
    assertTrue(r.recordsWritten() > 0, "the readable prefix is replayed");
    assertEquals(r.cutShort(), prefix.cutShort());
    assertFalse(r.complete());
    assertEquals(r.recordsWritten(), Files.readAllLines(r.outputFile().orElseThrow()).size());
  }

  /** What the native replay benchmark interns again: the trace's strings under the driver's ids. */
  @Test
  void theInternedStringsAreTheTracesWithTheDriversIds() throws Exception {
    TraceReader first = new TraceReader();
    first.read(TestData.traceFiles("h3_mix").get(0));
    Map<String, Integer> ids = first.internedStrings();
    assertTrue(ids.keySet().containsAll(List.of("AllReduce", "AllGather", "ReduceScatter", "ncclFloat32")), ids::toString);
    assertEquals(ids.size(), new HashSet<>(ids.values()).size(), "one id per string");
    assertTrue(ids.values().stream().allMatch(id -> id > 0), ids::toString);
    assertThrows(UnsupportedOperationException.class, () -> ids.put("x", 1));
    /* The driver's ids are the process's: another reader gets the same id for the same string. */
    TraceReader second = new TraceReader();
    second.read(TestData.traceFiles("h3_mix").get(0));
    assertEquals(ids, second.internedStrings());
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aFileWithoutLineEndsIsRefusedWithinBoundedMemory() throws Exception {
    Path zero = Path.of("/dev/zero");
    TraceEvents e = new TraceReader().read(zero);
    assertEquals(0, e.count());
    assertTrue(e.cutShort().orElseThrow().contains("/dev/zero:1: a line longer than 1 MiB"), e.cutShort()::get);
  }

  @Test
  void garbageIsGivenUpOnAndListedBoundedly() throws Exception {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 5000; i++) {
      b.append("garbage ").append(i).append('\n');
    }
    Path junk = Files.writeString(dir.resolve("junk.jsonl"), b);
    TraceEvents e = new TraceReader().read(junk);
    assertEquals(0, e.count());
    assertTrue(e.cutShort().orElseThrow().contains("not a recorded trace"), e.cutShort()::get);
    assertTrue(e.problems().size() <= TraceReader.MAX_PROBLEMS_LISTED + 2, "listed: " + e.problems().size());
  }

  @Test
  void unreadableInputsAreNamedInTheError() throws Exception {
    Path directory = Files.createDirectory(dir.resolve("trace-pid3.jsonl.gz"));
    IOException d = assertThrows(IOException.class, () -> new TraceReader().read(directory));
    assertTrue(d.getMessage().startsWith(directory + ": is a directory"), d.getMessage());

    Path empty = Files.write(dir.resolve("trace-pid4.jsonl.gz"), new byte[0]);
    IOException em = assertThrows(IOException.class, () -> new TraceReader().read(empty));
    assertTrue(em.getMessage().startsWith(empty + ": empty"), em.getMessage());

    Path notGzip = Files.writeString(dir.resolve("trace-pid5.jsonl.gz"), "{\"ev\":\"fini\"}\n");
    IOException ng = assertThrows(IOException.class, () -> new TraceReader().read(notGzip));
    assertTrue(ng.getMessage().startsWith(notGzip + ": not a gzip file"), ng.getMessage());

    Path missing = dir.resolve("trace-pid6.jsonl");
    IOException m = assertThrows(IOException.class, () -> new TraceReader().read(missing));
    assertTrue(m.getMessage().startsWith(missing + ": cannot be read"), m.getMessage());
  }
}
