package io.ncclinspector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.testsupport.LogCapture;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.ProcessIdentity;
import io.ncclinspector.Quarantine;
import io.ncclinspector.testkit.SyntheticTrace;
import io.ncclinspector.testsupport.TestData;
import io.ncclinspector.internal.output.GatedFileSystem;
import io.ncclinspector.internal.output.QuotaFileSystem;
import io.ncclinspector.replay.TracePlayer;
import io.ncclinspector.replay.TraceReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JSON output on a disk that fills up, an unwritable directory, and names already taken. A
 * record counts as written exactly when its whole line is in the file; held lines go out once
 * space frees; what cannot be held is counted; nothing is created before there is a record, and
 * nothing existing is opened or truncated.
 */
class JsonFileSinkTest {
  /** The 262 records of a recorded H200 run (h3_mix, rank 0), as the dump thread hands them on. */
  static List<OperationRecord> records;
  /** Its records whose GPU timestamps are quarantined. */
  static List<OperationRecord> quarantined;

  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();

  @BeforeAll
  static void recordRealRecords(@TempDir Path tmp) throws Exception {
    List<OperationRecord> seen = new CopyOnWriteArrayList<>();
    try (NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(tmp)
        .jsonOutput(false).minMessageBytes(0).requireKernelTiming(false).build())) {
      inspector.addListener(new InspectorListener() {
        @Override
        public void operationCompleted(OperationRecord r) {
          seen.add(r);
        }
      });
      /* On the trace's clock: on the real clock a replay compresses the run's host time against its
       * GPU timestamps, and which channels look early then depends on the replay's speed. */
      try (TracePlayer p = TracePlayer.open(inspector, new TraceReader().read(TestData.traceFiles("h3_mix").get(0)),
          true)) {
        p.playAll();
      }
      /* and one whose kernel channel stopped before it started: quarantined */
      SyntheticTrace s = new SyntheticTrace().init(1, 0x77L, 0, 2);
      long t0 = 1_795_942_870_000_000_000L;
      int reversed = s.coll(1, "AllReduce", 1, 1 << 20, "ncclFloat32", 1);
      int ch = s.kernelChannel(1, reversed, 0, t0 + 9000);
      s.stop(reversed).kernelChannelDone(ch, t0 + 1000).fini(1);
      try (TracePlayer p = TracePlayer.open(inspector, s.write(tmp.resolve("t"), 7))) {
        p.playAll();
      }
    }
    records = seen.stream().filter(r -> r.timing().quarantine() == Quarantine.NONE).toList();
    quarantined = seen.stream().filter(r -> r.timing().quarantine() != Quarantine.NONE).toList();
    assertFalse(quarantined.isEmpty());
    /* h3_mix: 262 records, 79 of them untimed after its AlltoAll (kernel-channel desync) */
    assertTrue(records.size() > 150, "records: " + records.size());
  }

  @Test
  void anAbandonedWriterLeavesNoThreadOrFileOpenOnceTheDiskAnswers() throws Exception {
    /* The disk hangs in the first write; the writer thread, waiting for it in a flush, is abandoned
       at close. Its appending thread must still end (closing both files) once the disk answers,
       and every record be written, counted as not written, or dropped. */
    logs.expect("WARN", "test-json-writer did not finish within 200 ms and is abandoned");
    GatedFileSystem disk = new GatedFileSystem(true);
    JsonFileSink json = JsonFileSink.open(config(dir), "test", disk);
    AsyncSink writer = new AsyncSink(json, "test-json-writer", 1 << 12, Duration.ofMillis(200));
    writer.acceptAll(records);
    writer.flush();
    writer.acceptAll(records.subList(0, 10)); /* queued behind the stuck flush: dropped at abandonment */
    writer.close();
    assertTrue(writer.abandoned());
    writer.thread().join(10_000);
    assertTrue(json.appendThread().isAlive(), "still in the first write");
    disk.open();
    json.appendThread().join(10_000);
    assertFalse(json.appendThread().isAlive(), "the appending thread ends once the disk answers");
    assertEquals(records.size() + 10, writer.delivered() + writer.dropped());
    assertEquals(writer.delivered(), json.linesWritten() + json.linesNotWritten());
    assertTrue(json.linesWritten() > 0);
    assertEquals(json.linesWritten(), Files.readAllLines(json.createdFile().orElseThrow()).size());
  }

  private InspectorConfig config(Path out) {
    return InspectorConfig.builder().dumpDirectory(out).processIdentity(new ProcessIdentity("host", 42)).build();
  }

  private static List<String> lines(Path file) throws Exception {
    return Files.readAllLines(file, StandardCharsets.UTF_8);
  }

  /** Every line of the file is a whole JSON object, and the file ends with a newline. */
  private static void assertWholeLines(Path file) throws Exception {
    byte[] bytes = Files.readAllBytes(file);
    assertTrue(bytes.length == 0 || bytes[bytes.length - 1] == '\n', "the file ends with a whole line");
    ObjectMapper json = new ObjectMapper();
    for (String line : lines(file)) {
      assertTrue(json.readTree(line).has("coll_perf") || json.readTree(line).has("p2p_perf"), line);
    }
  }

  @Test
  void aFullDiskIsCountedExactlyAndWritingResumesWhenSpaceFrees() throws Exception {
    logs.expect("ERROR", "No space left on device").expect("WARN", "is written again");
    QuotaFileSystem disk = new QuotaFileSystem(40_000); /* room for about 60 lines */
    ManualTicker ticker = new ManualTicker();
    JsonFileSink sink = JsonFileSink.open(config(dir), "test", disk, ticker);
    for (OperationRecord r : records) {
      sink.operationCompleted(r);
    }
    sink.flush();
    Path file = sink.createdFile().orElseThrow();
    assertTrue(sink.error().orElseThrow().contains("No space left on device"), sink.error()::toString);
    long written = sink.linesWritten();
    assertTrue(written > 0 && written < records.size(), "written: " + written);
    assertEquals(written, lines(file).size(), "written counts exactly the lines in the file");
    assertWholeLines(file);
    assertEquals(0, sink.linesNotWritten(), "the rest is held, not lost yet");

    disk.setQuota(10_000_000);
    ticker.advance(Duration.ofMillis(999));
    sink.flush();
    assertTrue(sink.error().isPresent(), "no new attempt within the retry interval (1 s)");
    assertEquals(written, sink.linesWritten());
    ticker.advance(Duration.ofMillis(1));
    sink.flush();
    assertTrue(sink.error().isEmpty());
    sink.close();
    assertEquals(records.size(), sink.linesWritten(), "everything written once space freed");
    assertEquals(records.size(), lines(file).size());
    assertWholeLines(file);
    assertEquals(0, sink.linesNotWritten());
    assertTrue(sink.firstError().orElseThrow().contains("No space left on device"));
  }

  @Test
  void whatStillCannotBeWrittenAtCloseIsCountedAsNotWritten() throws Exception {
    logs.expect("ERROR", "No space left on device");
    QuotaFileSystem disk = new QuotaFileSystem(30_000);
    JsonFileSink sink = JsonFileSink.open(config(dir), "test", disk);
    for (OperationRecord r : records) {
      sink.operationCompleted(r);
    }
    sink.close();
    Path file = sink.createdFile().orElseThrow();
    assertEquals(records.size(), sink.linesWritten() + sink.linesNotWritten(), "every record written or counted");
    assertTrue(sink.linesNotWritten() > 0);
    assertEquals(sink.linesWritten(), lines(file).size());
    assertWholeLines(file);
  }

  @Test
  void anUnwritableDirectoryIsReportedAtOnceAndEveryRecordIsCounted() throws Exception {
    logs.expect("ERROR", "directory not writable");
    QuotaFileSystem disk = new QuotaFileSystem(10_000_000);
    Path out = dir.resolve("read-only");
    Files.createDirectories(out);
    disk.denyDirectory(out);
    JsonFileSink sink = JsonFileSink.open(config(out), "test", disk);
    assertTrue(sink.error().orElseThrow().contains(out.toString()), "reported before any record: " + sink.error());
    for (OperationRecord r : records.subList(0, 10)) {
      sink.operationCompleted(r);
    }
    sink.flush();
    sink.close();
    assertEquals(0, sink.linesWritten());
    assertEquals(10, sink.linesNotWritten());
    try (Stream<Path> left = Files.list(out)) {
      assertEquals(0, left.count());
    }
  }

  @Test
  void nothingIsCreatedBeforeTheFirstRecord() throws Exception {
    Path out = dir.resolve("not-yet");
    JsonFileSink sink = JsonFileSink.open(config(out), "test");
    sink.flush();
    assertFalse(Files.exists(out), "no directory, no file before there is a record");
    assertEquals(out.resolve("host-pid42.log").toAbsolutePath(), sink.file());
    sink.close();
    assertFalse(Files.exists(out));
  }

  @Test
  void takenNamesAreNeverOpenedAndTheNextFreeNameIsUsed() throws Exception {
    Files.createDirectories(dir);
    Path earlier = Files.writeString(dir.resolve("host-pid42.log"), "a crashed run's log\n");
    Path victim = Files.writeString(dir.resolve("victim"), "must stay\n");
    Files.createSymbolicLink(dir.resolve("host-pid42-1.log"), victim);
    Files.createDirectory(dir.resolve("host-pid42-2.log"));
    Files.createSymbolicLink(dir.resolve("host-pid42.quarantine.log"), victim);
    JsonFileSink sink = JsonFileSink.open(config(dir), "test");
    for (OperationRecord r : records.subList(0, 5)) {
      sink.operationCompleted(r);
    }
    sink.operationCompleted(quarantined.get(0));
    sink.close();
    assertEquals(dir.resolve("host-pid42-3.log").toAbsolutePath(), sink.createdFile().orElseThrow());
    assertEquals(dir.resolve("host-pid42.quarantine-1.log").toAbsolutePath(), sink.quarantineFile());
    assertEquals(1, sink.linesQuarantined());
    assertEquals(1, lines(sink.quarantineFile()).size());
    assertEquals(5, lines(sink.createdFile().orElseThrow()).size());
    assertEquals("a crashed run's log\n", Files.readString(earlier), "an earlier log is never truncated");
    assertEquals("must stay\n", Files.readString(victim), "a planted link is never followed");
    assertTrue(Files.isSymbolicLink(dir.resolve("host-pid42-1.log")));
  }
}
