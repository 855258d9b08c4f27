package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.engine.duckdb.EngineSettings;
import io.ncclinspector.report.output.OutputFiles;
import io.ncclinspector.report.output.TableFiles;
import io.ncclinspector.report.synthetic.SyntheticConfig;
import io.ncclinspector.report.synthetic.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Input a hostile user would give the report (issue 21), beside the damaged input of {@link
 * CorruptInputTest}: names that a spreadsheet would run, values out of any plausible range, fields
 * of the wrong JSON type, files that cannot be read, and a planted output tree. None of it may
 * stop the report, get into its figures unmarked, or reach anything outside the output directory.
 */
class HostileInputTest {
  @TempDir
  Path tmp;
  private Path logs;
  /** Two ranks' logs of a 2-rank job, 40 collectives each. */
  private List<String> rank0;
  private List<String> rank1;

  @BeforeEach
  void makeLogs() throws Exception {
    Path gen = tmp.resolve("gen");
    TestSupport.generate(SyntheticConfig.builder(gen).nodes(1).gpusPerNode(2)
        .workload(Workload.WORLD_ALLREDUCE).iterations(40).build());
    rank0 = TestSupport.lines(gen.resolve("node00-pid10000.log"));
    rank1 = TestSupport.lines(gen.resolve("node00-pid10001.log"));
    logs = Files.createDirectories(tmp.resolve("logs"));
  }

  private ReportResult run() throws Exception {
    return TestSupport.report(tmp.resolve("out"), logs.toString());
  }

  /** A line with its JSON changed. */
  static String edit(String line, Consumer<ObjectNode> change) throws Exception {
    ObjectNode record = (ObjectNode) TableFiles.json().readTree(line);
    change.accept(record);
    return TableFiles.json().writer().without(
        com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT).writeValueAsString(record);
  }

  private static List<String> editAll(List<String> lines, Consumer<ObjectNode> change)
      throws Exception {
    List<String> out = new ArrayList<>();
    for (String l : lines) {
      out.add(edit(l, change));
    }
    return out;
  }

  @Test
  void namesThatASpreadsheetWouldRunAreNeutralisedInEveryCsv() throws Exception {
    String formula = "=cmd|' /C calc'!A0";
    TestSupport.writeLines(logs.resolve("a.log"), editAll(rank0, r -> {
      ((ObjectNode) r.get("header")).put("comm_name", formula);
      ((ObjectNode) r.get("metadata")).put("hostname", "@SUM(1+1)");
    }));
    TestSupport.writeLines(logs.resolve("b.log"), editAll(rank1, r -> {
      ((ObjectNode) r.get("header")).put("comm_name", formula);
      ((ObjectNode) r.get("metadata")).put("hostname", "+node1");
    }));
    ReportResult r = run();
    for (String table : List.of(OutputFiles.COMMUNICATORS, OutputFiles.RANKS,
        OutputFiles.RANK_LATENESS, OutputFiles.PROCESS_LATENESS, OutputFiles.WORST)) {
      String csv = Files.readString(r.outputDirectory().resolve(table + ".csv"));
      for (String line : csv.split("\n")) {
        for (String cell : line.split(",")) {
          assertFalse(cell.startsWith("=") || cell.startsWith("@") || cell.startsWith("+"),
              table + ".csv: " + line);
        }
      }
    }
    String comms = Files.readString(r.outputDirectory().resolve(OutputFiles.COMMUNICATORS + ".csv"));
    assertTrue(comms.contains(",'" + formula + ","), comms);
    String ranks = Files.readString(r.outputDirectory().resolve(OutputFiles.RANKS + ".csv"));
    assertTrue(ranks.contains(",'@SUM(1+1),") && ranks.contains(",'+node1,"), ranks);
  }

  @Test
  void aPlantedLinkInTheOutputTreeIsRefusedAndNothingBehindItIsTouched() throws Exception {
    TestSupport.writeLines(logs.resolve("a.log"), rank0);
    Path victim = Files.createDirectories(tmp.resolve("elsewhere"));
    Files.writeString(victim.resolve("part-0.parquet"), "precious");
    Files.writeString(victim.resolve("report.html"), "precious too");
    Path out = Files.createDirectories(tmp.resolve("out"));
    Files.createSymbolicLink(out.resolve(OutputFiles.RECORDS_DIR), victim);
    Files.createSymbolicLink(out.resolve(OutputFiles.HTML), victim.resolve("report.html"));

    ReportException e = org.junit.jupiter.api.Assertions.assertThrows(ReportException.class,
        this::run);
    assertTrue(e.getMessage().contains(out.resolve(OutputFiles.HTML) + ", "
        + out.resolve(OutputFiles.RECORDS_DIR) + " are symbolic links"), e.getMessage());
    assertEquals("precious", Files.readString(victim.resolve("part-0.parquet")));
    assertEquals("precious too", Files.readString(victim.resolve("report.html")));
    try (var s = Files.list(victim)) {
      assertEquals(2, s.count(), "nothing written there");
    }
    try (var s = Files.list(out)) {
      assertEquals(2, s.count(), "nothing written beside the links either: no staging left");
    }
  }

  private static ObjectNode perf(ObjectNode r) {
    return (ObjectNode) r.get("coll_perf");
  }

  /** (source file name, sn, excluded_reason) of the export's records, for the given condition. */
  private List<String> exported(ReportResult r, String where) throws Exception {
    try (DuckDbEngine e = DuckDbEngine.open(new EngineSettings(1, null, tmp.resolve("reader")))) {
      return e.query("SELECT regexp_extract(source_file, '[^/]*$') || ':' || sn || ':' ||"
          + " coalesce(excluded_reason, 'used') FROM read_parquet("
          + DuckDbEngine.literal(r.recordsDirectory().resolve("*.parquet").toString())
          + ") WHERE " + where + " ORDER BY 1", q -> q.getString(1));
    }
  }

  /** Issue 21: one of these aborted the whole report (INT32 or INT64 overflow in DuckDB). */
  @Test
  void absurdNumbersCostTheirRecordNeverTheReport() throws Exception {
    List<String> a = new ArrayList<>(rank0);
    List<String> b = new ArrayList<>(rank1);
    a.set(5, edit(a.get(5), r -> perf(r).put("coll_exec_time_ns", 1_000_000_000_000_000L)));
    b.set(6, edit(b.get(6), r -> {          // NVIDIA's format: microseconds only
      perf(r).remove("coll_exec_time_ns");
      perf(r).put("coll_exec_time_us", 1_000_000_000_000L);
    }));
    a.set(7, edit(a.get(7), r -> perf(r).put("coll_gpu_span_ns", Long.MAX_VALUE)));
    a.set(8, edit(a.get(8), r -> perf(r).put("coll_gpu_start_ns", Long.MAX_VALUE)));
    b.set(8, edit(b.get(8), r -> perf(r).put("coll_gpu_start_ns", -Long.MAX_VALUE)));
    TestSupport.writeLines(logs.resolve("a.log"), a);
    TestSupport.writeLines(logs.resolve("b.log"), b);

    ReportResult r = run();
    assertEquals(80, r.data().overview().records());
    assertEquals(5, r.data().overview().excluded().get("invalid_time"));
    assertEquals(75, r.data().overview().used());
    assertEquals(List.of("a.log:5:invalid_time", "a.log:7:invalid_time", "a.log:8:invalid_time",
        "b.log:6:invalid_time", "b.log:8:invalid_time"), exported(r, "excluded_reason IS NOT NULL"));
    assertEquals(36, r.data().stragglers().alignedCollectives(), "the 4 collectives with an"
        + " absurd time have at most one rank left to line up");
    assertTrue(Files.readString(r.html()).contains("Records with values out of any plausible range"
        + " (5 invalid_time: "), "said in the findings");
  }

  /**
   * Timestamps in range but far apart, on every rank of a 4-rank collective: their sum is past 64
   * bits (the straggler analysis sums arrivals over the ranks).
   */
  @Test
  void theArrivalSumOfFourRanksAtTheEdgeOfTheRangeDoesNotOverflow() throws Exception {
    Path gen = tmp.resolve("gen4");
    TestSupport.generate(SyntheticConfig.builder(gen).nodes(1).gpusPerNode(4)
        .workload(Workload.WORLD_ALLREDUCE).iterations(20).build());
    for (int rank = 0; rank < 4; rank++) {
      List<String> lines = TestSupport.lines(gen.resolve("node00-pid1000" + rank + ".log"));
      lines.set(3, edit(lines.get(3), r -> perf(r).put("coll_gpu_start_ns",
          1L << 62))); /* Exclusion.MAX_PLAUSIBLE_TIMESTAMP_NS: the year 2116 */
      TestSupport.writeLines(logs.resolve("r" + rank + ".log"), lines);
    }
    ReportResult r = run();
    assertEquals(80, r.data().overview().used());
    assertEquals(20, r.data().stragglers().alignedCollectives());
  }

  /** Issue 21: these entered the figures with no excluded_reason. */
  @Test
  void valuesOutOfRangeAreExcludedWithTheirReason() throws Exception {
    List<String> a = new ArrayList<>(rank0);
    a.set(1, edit(a.get(1), r -> ((ObjectNode) r.get("header")).put("rank", -1)));
    a.set(2, edit(a.get(2), r -> perf(r).put("coll_sn", -1)));
    a.set(3, edit(a.get(3), r -> ((ObjectNode) r.get("header")).put("nnodes", -5)));
    a.set(4, edit(a.get(4), r -> ((ObjectNode) r.get("metadata")).put("pid", -1)));
    a.set(5, edit(a.get(5), r -> perf(r).put("coll_algobw_gbs", 1e308)));
    a.set(6, edit(a.get(6), r -> perf(r).put("coll_gpu_start_ns", Long.MIN_VALUE)));
    a.set(7, edit(a.get(7), r -> ((ObjectNode) r.get("header")).put("rank", 2)));
    a.set(8, edit(a.get(8), r -> ((ObjectNode) r.get("header")).put("nnodes", 3)));
    a.set(9, edit(a.get(9), r -> perf(r).put("coll_busbw_gbs", -0.5)));
    a.set(10, edit(a.get(10), r -> ((ObjectNode) r.get("metadata")).put("dump_timestamp_us",
        Long.MAX_VALUE)));
    TestSupport.writeLines(logs.resolve("a.log"), a);
    TestSupport.writeLines(logs.resolve("b.log"), rank1);

    ReportResult r = run();
    assertEquals(List.of("a.log:-1:invalid_identity", "a.log:10:invalid_time",
        "a.log:1:invalid_identity", "a.log:3:invalid_identity", "a.log:4:invalid_identity",
        "a.log:5:invalid_bandwidth", "a.log:6:invalid_time", "a.log:7:invalid_identity",
        "a.log:8:invalid_identity", "a.log:9:invalid_bandwidth"),
        exported(r, "excluded_reason IS NOT NULL"));
    assertEquals(70, r.data().overview().used());
    // Records of no rank of the communicator are in no rank's or communicator's row.
    assertEquals(List.of(0, 1), r.data().ranks().stream().map(x -> x.rank()).toList());
    assertEquals(1, r.data().communicators().size());
    assertEquals(2, r.data().communicators().get(0).nRanks());
    assertEquals(1, r.data().communicators().get(0).nnodes());
    assertTrue(r.data().overview().lastDumpMicros() < 2_000_000_000_000_000L,
        "the absurd dump time is not the last one");
  }

  /**
   * Issue 21: NaN was imported (empty statistics, "NaN" in the HTML); {@code true} was read as 1,
   * {@code "0"} as 0; and a line with a bad value was imported and listed as rejected at once.
   * Every line is now either a record or a rejected line, by the same rules in the engine and the
   * line check.
   */
  @Test
  void fieldsOfTheWrongJsonTypeRejectTheirLineInTheEngineAndTheLineCheckAlike() throws Exception {
    List<String> a = new ArrayList<>(rank0);
    String ok = a.get(0);
    String[][] cases = {
        {"\"coll_busbw_gbs\":", "NaN", "coll_perf.coll_busbw_gbs is not a finite number"},
        {"\"coll_algobw_gbs\":", "Infinity", "coll_perf.coll_algobw_gbs is not a finite number"},
        {"\"coll_exec_time_us\":", "true", "coll_perf.coll_exec_time_us is not an integer"},
        {"\"rank\":", "\"0\"", "header.rank is not an integer"},
        {"\"coll\":", "5", "coll_perf.coll is not a string"},
        {"\"id\":", "12345", "header.id is not a string"},
        {"\"coll_exec_time_ns\":", "1.5", "coll_perf.coll_exec_time_ns is not an integer"},
        {"\"coll_gpu_start_ns\":", "\"1\"", "coll_perf.coll_gpu_start_ns is not an integer"},
        {"\"pid\":", "false", "metadata.pid is not an integer"},
        {"\"hostname\":", "7", "metadata.hostname is not a string"},
        {"\"coll_busbw_gbs\":", "\"1.5\"", "coll_perf.coll_busbw_gbs is not a finite number"},
    };
    for (int i = 0; i < cases.length; i++) {
      String field = cases[i][0];
      int at = ok.indexOf(field) + field.length();
      int end = at;
      while (ok.charAt(end) != ',' && ok.charAt(end) != '}') {
        end++;
      }
      a.set(i, ok.substring(0, at) + cases[i][1] + ok.substring(end));
    }
    TestSupport.writeLines(logs.resolve("a.log"), a);
    // The same lines gzip-compressed, and in a file whose only problem they are (no other line
    // makes the engine look at it closely).
    TestSupport.gzip(logs.resolve("a2.log.gz"), (String.join("\n", a) + "\n").getBytes(
        java.nio.charset.StandardCharsets.UTF_8));

    ReportResult r = run();
    for (String file : List.of("a.log", "a2.log.gz")) {
      var f = r.data().imported().files().stream().filter(x -> x.file().endsWith(file))
          .findFirst().orElseThrow();
      assertEquals(40 - cases.length, f.records(), file);
      assertEquals(cases.length, f.rejected(), file);
      List<io.ncclinspector.report.input.RejectedLine> listed = r.data().imported()
          .rejectedLines().stream().filter(l -> l.file().endsWith(file)).toList();
      for (int i = 0; i < cases.length; i++) {
        assertEquals(i + 1, listed.get(i).line(), file);
        assertEquals(cases[i][2], listed.get(i).reason(), file);
      }
    }
    assertTrue(r.data().imported().notices().isEmpty(), "the engine and the line check agree: "
        + r.data().imported().notices());
    assertEquals(List.of(), exported(r, "sn < " + cases.length), "none of them is a record");
    String html = Files.readString(r.html());
    assertFalse(html.contains("NaN"), "no NaN in the report");
  }

  /**
   * Issue 21: the same log under two names counted every record twice in the summary, ranks and
   * communicators, while the finding said duplicates were counted once.
   */
  @Test
  void aLogUnderTwoNamesIsReadOnce() throws Exception {
    TestSupport.writeLines(logs.resolve("a.log"), rank0);
    TestSupport.writeLines(logs.resolve("b.log"), rank1);
    Files.createDirectories(logs.resolve("backup"));
    TestSupport.writeLines(logs.resolve("backup/a-copy.log"), rank0);
    ReportResult r = run();
    assertEquals(80, r.data().overview().records());
    assertEquals(List.of(40L, 40L), r.data().ranks().stream().map(x -> x.records()).toList());
    assertEquals(80, r.data().communicators().get(0).records());
    assertEquals(0, r.data().stragglers().duplicateRecords());
    assertEquals(List.of(new io.ncclinspector.report.input.SkippedInput(logs + "/backup/a-copy.log",
        "the same content as " + logs + "/a.log, which is read (a log read twice would count every"
        + " record twice)")), r.data().skipped());
  }

  private static void mkfifo(Path p) throws Exception {
    assertEquals(0, new ProcessBuilder("mkfifo", p.toString()).inheritIO().start().waitFor());
  }

  /**
   * Issue 21: a log file that could not be read was passed over with exit 0, nothing on stderr and
   * nothing in inputs.csv; a FIFO was skipped without a word.
   */
  @Test
  @org.junit.jupiter.api.Timeout(60)
  void aFileThatCannotBeReadFailsTheRunAndEveryFilePassedOverIsListed() throws Exception {
    TestSupport.writeLines(logs.resolve("a.log"), rank0);
    Path b = logs.resolve("b.log");
    TestSupport.writeLines(b, rank1);
    Files.setPosixFilePermissions(b, java.util.Set.of());
    boolean rootReadsAnyway = Files.isReadable(b);
    Files.createSymbolicLink(logs.resolve("gone.log"), tmp.resolve("deleted-log"));
    mkfifo(logs.resolve("pipe.log"));

    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    int rc = ReportCommand.run(new String[] {logs.toString(), "--out",
        tmp.resolve("out").toString(), "--quiet"}, new java.io.PrintStream(
            new java.io.ByteArrayOutputStream(), true, java.nio.charset.StandardCharsets.UTF_8),
        new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
    Files.setPosixFilePermissions(b, java.util.Set.of(
        java.nio.file.attribute.PosixFilePermission.OWNER_READ,
        java.nio.file.attribute.PosixFilePermission.OWNER_WRITE));
    String stderr = err.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertEquals(1, rc, stderr);
    assertTrue(stderr.contains(logs + "/gone.log: cannot be read: a symbolic link to "
        + tmp.resolve("deleted-log") + ", which does not exist"), stderr);
    assertEquals(!rootReadsAnyway, stderr.contains(b + ": cannot be read: AccessDeniedException"),
        stderr);

    String inputs = Files.readString(tmp.resolve("out").resolve(OutputFiles.INPUTS));
    assertTrue(inputs.startsWith("file,path,compression,size_bytes,records,rejected,"
        + "rejected_listed,damage,corrupt,salvaged,passed_over\n"), inputs);
    assertTrue(inputs.contains(logs + "/gone.log,,,,0,0,0,,true,false,\"cannot be read: a"
        + " symbolic link to " + tmp.resolve("deleted-log") + ", which does not exist\"\n"), inputs);
    assertTrue(inputs.contains(logs + "/pipe.log,,,,0,0,0,,false,false,\"not a regular file (a"
        + " FIFO, socket or device): not read\"\n"), inputs);
    var manifest = TableFiles.json().readTree(tmp.resolve("out").resolve(OutputFiles.MANIFEST)
        .toFile()).get("imports");
    assertEquals(rootReadsAnyway ? 1 : 2, manifest.get("files_with_problems").asInt(),
        manifest.toString());
    assertTrue(manifest.get("skipped").toString().contains("\"unreadable\":true"),
        manifest.toString());

    // A FIFO named on the command line is not opened either (it would block the report).
    Path fifo = tmp.resolve("alone.log");
    mkfifo(fifo);
    ReportException e = org.junit.jupiter.api.Assertions.assertThrows(ReportException.class,
        () -> TestSupport.report(tmp.resolve("out2"), fifo.toString()));
    assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
  }
}
