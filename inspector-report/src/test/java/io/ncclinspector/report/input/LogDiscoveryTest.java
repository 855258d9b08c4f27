package io.ncclinspector.report.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.report.TestSupport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogDiscoveryTest {
  /** A record line of its own (files of identical content are read once). */
  private static String line(int sn) {
    return LineCheckTest.P2P.replace("\"p2p_sn\":3", "\"p2p_sn\":" + sn) + "\n";
  }

  @Test
  void findsLogsRecursivelyAndDecidesCompressionFromContent(@TempDir Path root) throws Exception {
    Path logs = root.resolve("logs");
    Files.createDirectories(logs.resolve("a/b"));
    Files.writeString(logs.resolve("x.log"), line(1));
    Files.writeString(logs.resolve("a/y.jsonl"), line(2));
    TestSupport.gzip(logs.resolve("a/b/z.log.gz"), line(3).getBytes(StandardCharsets.UTF_8));
    TestSupport.gzip(logs.resolve("a/b/w.jsonl.gz"), line(4).getBytes(StandardCharsets.UTF_8));
    // Named .gz but plain text: the content decides.
    Files.writeString(logs.resolve("plain.log.gz"), line(5));
    Files.writeString(logs.resolve("notes.txt"), "not a log");
    Files.writeString(logs.resolve("empty.log"), "");
    Files.writeString(logs.resolve("blank.log"), "\n \n");
    TestSupport.gzip(logs.resolve("trace-pid1.jsonl.gz"), ("{\"t\":1,\"ev\":\"init\"}\n")
        .getBytes(StandardCharsets.UTF_8));
    Files.writeString(logs.resolve("cupti-rank0.jsonl"),
        "{\"name\": \"ncclDevKernel_SendRecv\", \"start_us\": 1.5, \"dur_us\": 2.0}\n");
    Path out = logs.resolve("report");
    Files.createDirectories(out);
    Files.writeString(out.resolve("old.log"), LineCheckTest.P2P + "\n");

    InputSet set = LogDiscovery.discover(List.of(logs.toString()), out);
    Map<String, Compression> found = set.logs().stream().collect(Collectors.toMap(
        f -> root.relativize(f.path()).toString(), LogFile::compression));
    assertEquals(Map.of("logs/x.log", Compression.NONE, "logs/a/y.jsonl", Compression.NONE,
        "logs/a/b/z.log.gz", Compression.GZIP, "logs/a/b/w.jsonl.gz", Compression.GZIP,
        "logs/plain.log.gz", Compression.NONE), found);
    Map<String, String> skipped = set.skipped().stream().collect(Collectors.toMap(
        s -> Path.of(s.displayName()).getFileName().toString(), SkippedInput::reason));
    assertEquals("empty file", skipped.get("empty.log"));
    assertEquals("no records (only blank lines)", skipped.get("blank.log"));
    assertTrue(skipped.get("trace-pid1.jsonl.gz").startsWith("raw event trace"));
    assertEquals("CUPTI kernel timings, not Inspector records", skipped.get("cupti-rank0.jsonl"));
    assertEquals(4, skipped.size());
    assertEquals(logs + "/a/b/w.jsonl.gz", set.logs().get(0).displayName(),
        "display names join the argument as given and the path below it; sorted");
  }

  @Test
  void aFileReachedTwiceIsReadOnceAndNamedFilesAreTakenWhateverTheirName(@TempDir Path root)
      throws Exception {
    Path f = root.resolve("odd-name.txt");
    Files.writeString(f, line(1));
    Files.writeString(root.resolve("r.log"), line(2));
    InputSet set = LogDiscovery.discover(List.of(root.toString(), f.toString(),
        root.resolve("r.log").toString()), null);
    assertEquals(List.of("odd-name.txt", "r.log"), set.logs().stream()
        .map(l -> l.path().getFileName().toString()).sorted().toList());
  }

  @Test
  void followsSymbolicLinksToDirectoriesWithoutLooping(@TempDir Path root) throws Exception {
    Path storage = root.resolve("storage/job");
    Files.createDirectories(storage);
    Files.writeString(storage.resolve("n.log"), LineCheckTest.P2P + "\n");
    Path logs = root.resolve("logs");
    Files.createDirectories(logs);
    Files.createSymbolicLink(logs.resolve("job"), storage);
    Files.createSymbolicLink(storage.resolve("loop"), storage);
    Path linkedRoot = root.resolve("linked-root");
    Files.createSymbolicLink(linkedRoot, logs);

    InputSet viaDir = LogDiscovery.discover(List.of(logs.toString()), null);
    assertEquals(List.of(logs + "/job/n.log"), viaDir.logs().stream()
        .map(LogFile::displayName).toList());
    assertTrue(viaDir.skipped().stream().anyMatch(s -> s.reason().contains("Loop")),
        viaDir.skipped().toString());
    InputSet viaLink = LogDiscovery.discover(List.of(linkedRoot.toString()), null);
    assertEquals(List.of(linkedRoot + "/job/n.log"), viaLink.logs().stream()
        .map(LogFile::displayName).toList());
  }

  @Test
  void aMissingArgumentStopsTheRun(@TempDir Path root) {
    assertThrows(NoSuchFileException.class,
        () -> LogDiscovery.discover(List.of(root.resolve("nope").toString()), null));
  }

  @Test
  void globCharactersMakeAPathUnsafeForTheEngine() {
    assertTrue(new LogFile(Path.of("/a/b.log"), "b.log", 1, Compression.NONE).engineSafePath());
    assertEquals(false, new LogFile(Path.of("/a/[1].log"), "x", 1, Compression.NONE)
        .engineSafePath());
    assertEquals(false, new LogFile(Path.of("/a/*.log"), "x", 1, Compression.NONE)
        .engineSafePath());
  }
}
