package io.ncclinspector.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Locates the repository's test data (testdata/: recorded traces and the reference Inspector's
 * outputs of the same runs; see testdata/traces/FORMAT.md).
 */
public final class TestData {
  private TestData() {}

  public static Path root() {
    String prop = System.getProperty("nccl.inspector.testdata.dir");
    for (Path candidate : new Path[] {
        prop == null ? null : Path.of(prop), Path.of("../testdata"), Path.of("testdata")}) {
      if (candidate != null && Files.isDirectory(candidate.resolve("traces"))) {
        return candidate.toAbsolutePath().normalize();
      }
    }
    throw new IllegalStateException("test data not found (set -Dnccl.inspector.testdata.dir)");
  }

  public static Path traces() {
    return root().resolve("traces");
  }

  /** Trace files of a scenario, sorted. */
  public static List<Path> traceFiles(String scenario) throws IOException {
    try (Stream<Path> s = Files.list(traces().resolve(scenario).resolve("trace"))) {
      return s.filter(p -> p.getFileName().toString().endsWith(".jsonl.gz")).sorted().toList();
    }
  }

  /** All scenario directories, sorted. */
  public static List<String> scenarios() throws IOException {
    try (Stream<Path> s = Files.list(traces())) {
      return s.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
