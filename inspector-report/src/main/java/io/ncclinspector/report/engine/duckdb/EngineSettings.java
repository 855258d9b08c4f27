package io.ncclinspector.report.engine.duckdb;

import java.nio.file.Path;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How the embedded DuckDB runs.
 *
 * @param threads worker threads
 * @param memoryLimit DuckDB memory limit such as {@code "8GB"}, or null for DuckDB's default (80 %
 *     of physical memory)
 * @param spillDirectory where DuckDB may spill intermediate results
 */
public record EngineSettings(int threads, String memoryLimit, Path spillDirectory) {
  private static final Pattern MEMORY_LIMIT = Pattern.compile(
      "(?i)\\s*\\d+(\\.\\d+)?\\s*(B|KB|MB|GB|TB|KIB|MIB|GIB|TIB)\\s*");

  public EngineSettings {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1");
    }
    Objects.requireNonNull(spillDirectory, "spillDirectory");
    checkMemoryLimit(memoryLimit);
  }

  /**
   * Checks a memory limit as DuckDB takes it: a number and a unit, such as {@code 512MB},
   * {@code 8GB} or {@code 1.5TiB}; null (DuckDB's default) passes.
   *
   * @throws IllegalArgumentException saying what is expected
   */
  public static void checkMemoryLimit(String memoryLimit) {
    if (memoryLimit != null && !MEMORY_LIMIT.matcher(memoryLimit).matches()) {
      throw new IllegalArgumentException(
          "memory limit must look like 512MB or 8GB, got '" + memoryLimit + "'");
    }
  }
}
