package io.ncclinspector.report.output;

import io.ncclinspector.report.analysis.AnalysisOptions;
import io.ncclinspector.report.analysis.NetLink;
import io.ncclinspector.report.analysis.NetWaitedFor;
import io.ncclinspector.report.analysis.NetworkResult;
import io.ncclinspector.report.analysis.Overview;
import io.ncclinspector.report.analysis.P2pCompletionResult;
import io.ncclinspector.report.analysis.RankLateness;
import io.ncclinspector.report.engine.EngineInfo;
import io.ncclinspector.report.input.SkippedInput;
import java.util.List;
import java.util.Map;

/**
 * {@code report.json}: the overview and the settings of a report in machine-readable form, for
 * pipelines that check a job's communication health without parsing HTML.
 */
public record ReportManifest(
    String tool,
    String generatedAt,
    List<String> inputs,
    EngineInfo engine,
    AnalysisOptions options,
    Import imports,
    Overview overview,
    Stragglers stragglers,
    P2pCompletionResult p2pCompletion,
    Network network,
    Map<String, Double> stageSeconds,
    List<String> outputs) {

  /** @param recordColumns the columns of the records export: {@code core} or {@code all} */
  public record Import(long files, long records, long rejectedLines, long filesWithProblems,
      List<SkippedInput> skipped, List<String> notices, String recordColumns) {}

  public record Stragglers(String clockSync, double lateThresholdUs, long alignedCollectives,
      long lateCollectives, long incompleteCollectives, long duplicateRecords,
      List<RankLateness> suspects, List<String> notes) {}

  /**
   * The network section: how many records had a breakdown, the links with the most attributed
   * wait and the ranks others waited for notably, with the verdict.
   */
  public record Network(long records, long withBreakdown, long implausible,
      long withProxyDetail, long waits, long notableWaits, double lateThresholdUs,
      List<NetLink> slowestLinks, List<NetWaitedFor> lateRanks, List<String> notes) {
    static final int SLOWEST_LINKS = 10;

    public static Network of(NetworkResult n) {
      return new Network(n.records(), n.withBreakdown(), n.implausible(), n.withProxyDetail(),
          n.waits(), n.notableWaits(), n.lateThresholdUs(), n.slowestLinks(SLOWEST_LINKS),
          n.lateRanks(), n.notes());
    }
  }
}
