package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
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
}
