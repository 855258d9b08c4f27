package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.engine.duckdb.EngineSettings;
import io.ncclinspector.report.ingest.FileImport;
import io.ncclinspector.report.input.RejectedLine;
import io.ncclinspector.report.output.OutputFiles;
import io.ncclinspector.report.synthetic.SyntheticConfig;
import io.ncclinspector.report.synthetic.Workload;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damaged input is reported with file and line and skipped; it never stops the report, and the
 * good records around it are all kept.
 */
class CorruptInputTest {
  @TempDir
  Path tmp;
  private Path logs;
  private List<String> source;

  @BeforeEach
  void makeLogs() throws Exception {
    Path gen = tmp.resolve("gen");
    TestSupport.generate(SyntheticConfig.builder(gen).nodes(1).gpusPerNode(2)
        .workload(Workload.WORLD_ALLREDUCE).iterations(40).build());
    source = TestSupport.lines(gen.resolve("node00-pid10000.log"));
    assertEquals(40, source.size());
    logs = tmp.resolve("logs");
    Files.createDirectories(logs);
  }

  private ReportResult run() throws Exception {
    return TestSupport.report(tmp.resolve("out"), logs.toString());
  }

  private static Map<String, FileImport> byName(ReportResult r) {
    return r.data().imported().files().stream()
        .collect(Collectors.toMap(f -> Path.of(f.file()).getFileName().toString(), f -> f));
  }

  @Test
  void corruptAndTruncatedLinesAreListedWithTheirNumbersAndSkipped() throws Exception {
    List<String> lines = new java.util.ArrayList<>(source.subList(0, 10));
    lines.set(2, "garbage {{{");                                       // line 3
    lines.set(5, lines.get(5).replace("\"rank\":0", "\"rank\":\"zero\"")); // line 6
    lines.add(4, "");                                                  // blank line 5: ignored
    String truncated = source.get(10).substring(0, 150);              // cut mid-record
    Files.writeString(logs.resolve("plain.log"), String.join("\n", lines) + "\n" + truncated);
    TestSupport.gzip(logs.resolve("packed.log.gz"), (String.join("\n", lines) + "\n")
        .getBytes(StandardCharsets.UTF_8));

    ReportResult r = run();
    Map<String, FileImport> files = byName(r);
    assertEquals(8, files.get("plain.log").records());
    assertEquals(3, files.get("plain.log").rejected());
    assertEquals(8, files.get("packed.log.gz").records());
    assertEquals(2, files.get("packed.log.gz").rejected());
    assertEquals(16, r.data().overview().records());

    List<RejectedLine> rejected = r.data().imported().rejectedLines();
    List<String> where = rejected.stream()
        .map(l -> Path.of(l.file()).getFileName() + ":" + l.line()).toList();
    assertEquals(List.of("packed.log.gz:3", "packed.log.gz:7", "plain.log:3", "plain.log:7",
        "plain.log:12"), where);
    assertTrue(rejected.get(0).reason().startsWith("not valid JSON"));
    assertEquals("header.rank is not an integer", rejected.get(1).reason());
    assertEquals("truncated last line (JSON ends early)", rejected.get(4).reason());
    assertTrue(rejected.get(0).excerpt().startsWith("garbage"));

    String csv = Files.readString(r.outputDirectory().resolve(OutputFiles.REJECTED));
    assertTrue(csv.startsWith("file,line,reason,excerpt\n"), csv);
    assertTrue(csv.contains("plain.log,12,truncated last line (JSON ends early),"), csv);
    assertTrue(r.data().imported().notices().isEmpty(), r.data().imported().notices().toString());
  }

  @Test
  void aTruncatedGzipFileKeepsTheRecordsBeforeTheCut() throws Exception {
    StringBuilder text = new StringBuilder();
    for (int rep = 0; rep < 40; rep++) {
      source.forEach(l -> text.append(l).append('\n'));
    }
    Path whole = tmp.resolve("whole.gz");
    TestSupport.gzip(whole, text.toString().getBytes(StandardCharsets.UTF_8));
    byte[] gz = Files.readAllBytes(whole);
    Files.write(logs.resolve("cut.log.gz"), Arrays.copyOf(gz, gz.length * 2 / 3));

    ReportResult r = run();
    FileImport f = byName(r).get("cut.log.gz");
    assertNotNull(f.damage());
    assertTrue(f.damage().startsWith("gzip stream ends early (file truncated) after line"),
        f.damage());
    assertTrue(f.records() > 100 && f.records() < 1600, "records before the cut: " + f.records());
    assertEquals(1, f.rejected(), "the partial last line");
    assertFalse(f.corrupt(), "a file that ends early holds nothing more");
    assertTrue(r.data().imported().rejectedLines().get(0).reason().startsWith("truncated"));
  }

  @Test
  void aCorruptGzipMemberIsSaidWithWhereAndWhatWasLostAndFailsTheRun() throws Exception {
    // Two members of 100 and 200 records, the first byte of the second zeroed (issue 21): read
    // quietly as 100 records with no damage before, as the JDK's reader takes the bad header for
    // the end of the file.
    StringBuilder first = new StringBuilder();
    StringBuilder second = new StringBuilder();
    for (int i = 0; i < 300; i++) {
      (i < 100 ? first : second).append(source.get(i % source.size())).append('\n');
    }
    Path a = tmp.resolve("a.gz");
    Path b = tmp.resolve("b.gz");
    TestSupport.gzip(a, first.toString().getBytes(StandardCharsets.UTF_8));
    TestSupport.gzip(b, second.toString().getBytes(StandardCharsets.UTF_8));
    byte[] member2 = Files.readAllBytes(b);
    member2[0] = 0;
    long firstSize = Files.size(a);
    Files.write(logs.resolve("two.log.gz"), Files.readAllBytes(a));
    Files.write(logs.resolve("two.log.gz"), member2, java.nio.file.StandardOpenOption.APPEND);
    // And one whose second member has a flipped byte in its data, which DuckDB reads without a
    // word.
    byte[] flipped = Files.readAllBytes(b);
    flipped[flipped.length / 2] ^= (byte) 0xff;
    Files.write(logs.resolve("flipped.log.gz"), Files.readAllBytes(a));
    Files.write(logs.resolve("flipped.log.gz"), flipped, java.nio.file.StandardOpenOption.APPEND);

    ReportResult r = run();
    FileImport f = byName(r).get("two.log.gz");
    assertEquals(100, f.records());
    assertEquals(0, f.rejected());
    assertTrue(f.corrupt());
    assertEquals("gzip data corrupt after line 100: the bytes after member 1 (from byte " + firstSize
        + ") are not a gzip member; reading stopped at byte " + firstSize + ": " + member2.length
        + " of " + (firstSize + member2.length) + " compressed bytes not read", f.damage());
    FileImport g = byName(r).get("flipped.log.gz");
    assertTrue(g.corrupt());
    assertTrue(g.damage().startsWith("gzip data corrupt after line "), g.damage());
    assertTrue(g.damage().contains("member 2 (which starts at byte " + firstSize + ")"),
        g.damage());
    assertTrue(g.records() >= 100 && g.records() < 300, "records before the damage: "
        + g.records());
    String inputs = Files.readString(r.outputDirectory().resolve(OutputFiles.INPUTS));
    assertTrue(inputs.contains("gzip data corrupt after line 100"), inputs);

    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    int rc = ReportCommand.run(new String[] {logs.toString(), "--out",
        tmp.resolve("out2").toString(), "--quiet", "--threads", "1"},
        new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(1, rc, "data in the input could not be read");
    String stderr = err.toString(StandardCharsets.UTF_8);
    assertTrue(stderr.contains("2 input files could not be read in full"), stderr);
    assertTrue(stderr.contains("two.log.gz: gzip data corrupt after line 100"), stderr);
    assertTrue(Files.exists(tmp.resolve("out2").resolve(OutputFiles.HTML)), "the report is written");
  }

  @Test
  void aFileTheEngineCannotReadIsSalvagedLineByLine() throws Exception {
    // gzip magic, then nonsense: DuckDB's reader fails on the whole file.
    Files.write(logs.resolve("broken.log.gz"), new byte[] {0x1f, (byte) 0x8b, 8, 0, 'j', 'u',
        'n', 'k', 'j', 'u', 'n', 'k', 'j', 'u', 'n', 'k'});
    TestSupport.writeLines(logs.resolve("good.log"), source);
    // A name with glob characters cannot be handed to DuckDB as a path: copied first.
    TestSupport.writeLines(logs.resolve("weird [1] *.log"), source.subList(0, 5));

    ReportResult r = run();
    Map<String, FileImport> files = byName(r);
    assertTrue(files.get("broken.log.gz").salvaged());
    assertEquals(0, files.get("broken.log.gz").records());
    assertTrue(files.get("broken.log.gz").damage().startsWith("gzip data corrupt"),
        files.get("broken.log.gz").damage());
    assertEquals(40, files.get("good.log").records());
    assertFalse(files.get("good.log").salvaged());
    assertTrue(files.get("weird [1] *.log").salvaged());
    assertEquals(5, files.get("weird [1] *.log").records());
    assertNull(files.get("weird [1] *.log").damage());
    assertEquals(45, r.data().overview().records());
    // The salvaged records carry the original file name in the export.
    assertEquals(5, countFromParquet(r, "weird [1] *.log"));
  }

  private static long countFromParquet(ReportResult r, String fileName) throws Exception {
    try (var e = DuckDbEngine.open(
        new EngineSettings(1, null, r.outputDirectory().resolve("tmp-test")))) {
      return e.query("SELECT count(*) FROM read_parquet("
          + DuckDbEngine.literal(r.recordsDirectory().resolve("*.parquet").toString())
          + ") WHERE source_file LIKE " + DuckDbEngine.literal("%" + fileName),
          rs -> rs.getLong(1)).get(0);
    }
  }

  @Test
  void whenNothingIsUsableTheReasonIsGiven() throws Exception {
    Files.writeString(logs.resolve("x.log"), "not json\n{\"also\":\"not a record\"}\n");
    ReportResult r = run();
    assertEquals(0, r.data().overview().records());
    assertEquals(2, r.data().imported().rejected());
    assertTrue(Files.exists(r.html()), "the report still explains what happened");
  }
}
