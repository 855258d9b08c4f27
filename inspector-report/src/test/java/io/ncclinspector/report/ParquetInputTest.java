package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.report.ingest.FileImport;
import io.ncclinspector.report.input.Compression;
import io.ncclinspector.report.input.SkippedInput;
import io.ncclinspector.report.output.OutputFiles;
import io.ncclinspector.report.output.ReportData;
import io.ncclinspector.report.synthetic.SyntheticConfig;
import io.ncclinspector.report.synthetic.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report's own Parquet export is an input too: an earlier report's records, read together
 * with new logs, give the same report as all the logs.
 */
class ParquetInputTest {
  @Test
  void anEarlierExportPlusNewLogsGivesTheSameReportAsAllTheLogs(@TempDir Path tmp)
      throws Exception {
    Path all = tmp.resolve("all");
    TestSupport.generate(SyntheticConfig.builder(all).nodes(2).gpusPerNode(2)
        .workload(Workload.WORLD_ALLREDUCE).iterations(300).seed(4)
        .straggler(3, 0.3, 800_000).build());
    Path node0 = Files.createDirectories(tmp.resolve("node0"));
    Path node1 = Files.createDirectories(tmp.resolve("node1"));
    try (Stream<Path> s = Files.list(all)) {
      for (Path f : s.toList()) {
        Path to = (f.getFileName().toString().startsWith("node00") ? node0 : node1)
            .resolve(f.getFileName());
        Files.copy(f, to);
      }
    }
    ReportResult first = TestSupport.report(tmp.resolve("first"), node0.toString());
    ReportData direct = TestSupport.report(tmp.resolve("direct"), node0.toString(),
        node1.toString()).data();
    // The first report's directory as input: its records are read, its collectives.parquet
    // (not records) is passed over with the reason.
    ReportData again = TestSupport.report(tmp.resolve("again"), first.outputDirectory()
        .toString(), node1.toString()).data();

    assertEquals(direct.overview(), again.overview());
    // Means and sums of doubles may differ in the last bits (another order of addition).
    TestSupport.assertSameRows(direct.classes(), again.classes());
    TestSupport.assertSameRows(direct.ranks(), again.ranks());
    assertEquals(direct.stragglers().alignedCollectives(), again.stragglers().alignedCollectives());
    assertEquals(List.of(3), again.stragglers().suspects().stream().map(r -> r.rank()).toList());

    List<FileImport> parquet = again.imported().files().stream()
        .filter(f -> f.compression() == Compression.PARQUET).toList();
    assertEquals(1, parquet.size());
    assertEquals(first.data().overview().records(), parquet.get(0).records());
    SkippedInput collectives = again.skipped().stream()
        .filter(s -> s.displayName().endsWith(OutputFiles.COLLECTIVES)).findFirst().orElseThrow();
    assertTrue(collectives.reason().startsWith("Parquet without the report's record columns"),
        collectives.reason());
    // The records keep the name of the log they came from.
    assertTrue(again.ranks().stream().allMatch(r -> r.hostname() != null));
  }
}
