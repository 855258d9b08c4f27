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
}
