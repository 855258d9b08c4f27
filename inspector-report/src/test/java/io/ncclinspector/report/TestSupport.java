package io.ncclinspector.report;

import io.ncclinspector.report.synthetic.SyntheticConfig;
import io.ncclinspector.report.synthetic.SyntheticGenerator;
import io.ncclinspector.report.synthetic.SyntheticResult;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/** Helpers shared by the tests: generating logs and running reports quietly. */
public final class TestSupport {
  /** Threads of the tests' reports: 2, or fewer on a machine with fewer processors. */
  public static final int THREADS = Math.min(2, ReportOptions.maxThreads());

  private TestSupport() {}

  public static SyntheticResult generate(SyntheticConfig config) throws IOException {
    return SyntheticGenerator.generate(config, n -> { });
  }

  /** Runs a report with default options and no progress output. */
  public static ReportResult report(Path out, String... inputs) throws ReportException {
    return report(ReportOptions.builder(out).inputs(inputs).threads(THREADS).progress(false).build());
  }

  public static ReportResult report(ReportOptions options) throws ReportException {
    return new ReportRunner(options, Progress.silent()).run();
  }

  public static List<String> lines(Path file) throws IOException {
    return new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8));
  }

  public static void writeLines(Path file, List<String> lines) throws IOException {
    Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
  }

  public static void gzip(Path file, byte[] content) throws IOException {
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
      out.write(content);
    }
  }

  /** The repository's test data directory (testdata/), as the parent POM passes it to tests. */
  public static Path testDataDir() {
    String dir = System.getProperty("nccl.inspector.testdata.dir");
    if (dir == null) {
      throw new IllegalStateException("system property nccl.inspector.testdata.dir is not set"
          + " (the parent POM sets it to testdata/)");
    }
    return Path.of(dir);
  }

  /**
   * Asserts that two lists of records are equal, doubles within a relative 1e-9 (sums and means
   * of doubles may differ in the last bits between runs: another order of addition).
   */
  public static void assertSameRows(List<? extends Record> expected,
      List<? extends Record> actual) {
    org.junit.jupiter.api.Assertions.assertEquals(expected.size(), actual.size(), "rows");
    for (int i = 0; i < expected.size(); i++) {
      Record a = expected.get(i);
      Record b = actual.get(i);
      org.junit.jupiter.api.Assertions.assertEquals(a.getClass(), b.getClass());
      for (var c : a.getClass().getRecordComponents()) {
        try {
          Object x = c.getAccessor().invoke(a);
          Object y = c.getAccessor().invoke(b);
          if (x instanceof Double dx && y instanceof Double dy) {
            org.junit.jupiter.api.Assertions.assertEquals(dx, dy,
                Math.max(Math.abs(dx), Math.abs(dy)) * 1e-9, "row " + i + " " + c.getName());
          } else {
            org.junit.jupiter.api.Assertions.assertEquals(x, y, "row " + i + " " + c.getName());
          }
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException(e);
        }
      }
    }
  }

  /** The relation of a report's records export, for DuckDB: {@code read_parquet('.../*.parquet')}. */
  public static String exportParts(ReportResult r) {
    return "read_parquet(" + io.ncclinspector.report.engine.duckdb.DuckDbEngine.literal(
        r.recordsDirectory().resolve("*.parquet").toString()) + ")";
  }
}
