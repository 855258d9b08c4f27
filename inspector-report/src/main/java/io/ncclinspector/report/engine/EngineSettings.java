package io.ncclinspector.report.engine;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How the embedded DuckDB runs.
 *
 * @param threads worker threads
 * @param memoryLimit DuckDB memory limit such as {@code "8GB"}, or null for DuckDB's default (80 %
 *     of physical memory)
 * @param spillDirectory where DuckDB may spill intermediate results
 */
public record EngineSettings(int threads, String memoryLimit, Path spillDirectory) {
  public EngineSettings {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1");
    }
    Objects.requireNonNull(spillDirectory, "spillDirectory");
    if (memoryLimit != null && !memoryLimit.matches("(?i)\\s*\\d+(\\.\\d+)?\\s*(B|KB|MB|GB|TB|KIB|MIB|GIB|TIB)\\s*")) {
      throw new IllegalArgumentException(
          "memory limit must look like 512MB or 8GB, got '" + memoryLimit + "'");
    }
  }
}
