package io.ncclinspector.prometheus;

import java.nio.file.Path;
import java.util.Set;

/**
 * A running Prometheus textfile exporter, as {@code NcclInspector.exporter(TextfileExporter.class)}
 * returns it: which files it wrote.
 */
public interface TextfileExporter {
  /**
   * The textfiles written so far and still there. A GPU's file appears at the first write after
   * it saw operations.
   */
  Set<Path> files();

  /** The file of a GPU ({@code nccl_inspector_metrics_<uuid>.prom}). */
  Path gpuFile(String uuid);

  /** The file of the process-wide counters ({@code nccl_inspector_process_<host>-pid<pid>.prom}). */
  Path processFile();

  /** Operations not in the metrics because their GPU's file had reached the series limit. */
  long seriesOverflow();
}
