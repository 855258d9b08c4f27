package io.ncclinspector.report.output;

import io.ncclinspector.report.analysis.AnalysisOptions;
import io.ncclinspector.report.analysis.ClassSummary;
import io.ncclinspector.report.analysis.CommunicatorSummary;
import io.ncclinspector.report.analysis.Histogram;
import io.ncclinspector.report.analysis.NetworkResult;
import io.ncclinspector.report.analysis.Overview;
import io.ncclinspector.report.analysis.P2pCompletionResult;
import io.ncclinspector.report.analysis.RankSummary;
import io.ncclinspector.report.analysis.StragglerResult;
import io.ncclinspector.report.engine.EngineInfo;
import io.ncclinspector.report.ingest.ImportResult;
import io.ncclinspector.report.input.SkippedInput;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Everything the report presents.
 *
 * @param generatedAt when the report was made
 * @param inputs the input arguments
 * @param engine the engine that computed the figures
 * @param options the analysis choices
 * @param imported how the files were imported
 * @param skipped files found but not imported
 * @param overview totals
 * @param classes per communication class, operation and size bucket
 * @param communicators per communicator
 * @param ranks per communicator rank
 * @param execHistograms execution-time distributions of the busiest groups
 * @param stragglers the cross-rank analysis
 * @param p2pCompletion when point-to-point receives really completed
 * @param network where operations waited on the network, and for whom
 * @param stageSeconds how long each stage took
 */
public record ReportData(
    Instant generatedAt,
    List<String> inputs,
    EngineInfo engine,
    AnalysisOptions options,
    ImportResult imported,
    List<SkippedInput> skipped,
    Overview overview,
    List<ClassSummary> classes,
    List<CommunicatorSummary> communicators,
    List<RankSummary> ranks,
    List<Histogram> execHistograms,
    StragglerResult stragglers,
    P2pCompletionResult p2pCompletion,
    NetworkResult network,
    Map<String, Double> stageSeconds) {
  public ReportData {
    inputs = List.copyOf(inputs);
    skipped = List.copyOf(skipped);
    classes = List.copyOf(classes);
    communicators = List.copyOf(communicators);
    ranks = List.copyOf(ranks);
    execHistograms = List.copyOf(execHistograms);
    stageSeconds = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(
        stageSeconds));
  }
}
