package io.ncclinspector.report.analysis;

import java.util.List;
import java.util.Map;

/**
 * The cross-rank straggler analysis.
 *
 * @param clockSync the clock handling used
 * @param lateThresholdUs the late threshold used
 * @param alignedCollectives collectives lined up across at least two ranks
 * @param lateCollectives of those, held up by a late rank
 * @param incompleteCollectives aligned collectives where fewer ranks reported than the
 *     communicator has
 * @param duplicateRecords records dropped because the same (communicator, operation, sequence
 *     number, rank) appeared more than once (the same log read twice, for instance)
 * @param ranks per communicator rank, most delay caused first
 * @param processes per process, most delay caused first
 * @param communicators per communicator
 * @param worst the most delayed collectives
 * @param delayHistograms per communicator (the most delayed ones), distribution of delays
 * @param notes explanations (why nothing could be aligned, clock offsets found, ...)
 */
public record StragglerResult(
    ClockSync clockSync,
    double lateThresholdUs,
    long alignedCollectives,
    long lateCollectives,
    long incompleteCollectives,
    long duplicateRecords,
    List<RankLateness> ranks,
    List<ProcessLateness> processes,
    List<CommunicatorSkew> communicators,
    List<CollectiveSkew> worst,
    Map<String, Histogram> delayHistograms,
    List<String> notes) {
  public StragglerResult {
    ranks = List.copyOf(ranks);
    processes = List.copyOf(processes);
    communicators = List.copyOf(communicators);
    worst = List.copyOf(worst);
    delayHistograms = Rows.ordered(delayHistograms);
    notes = List.copyOf(notes);
  }

  /** The ranks flagged as suspects, most delay first. */
  public List<RankLateness> suspects() {
    return ranks.stream().filter(RankLateness::suspect).toList();
  }
}
