package io.ncclinspector.report.analysis;

/**
 * How often one rank of one communicator held up its collectives, from GPU start timestamps.
 *
 * <p>A collective is <em>held up</em> by its last-arriving rank when that rank started at least
 * the late threshold after the mean start of the other ranks; the <em>delay</em> is that
 * difference: the time the others spent waiting for it, on average. {@code execMeanUs} is given beside it on purpose:
 * the culprit's own execution times are the shortest, because it never waits.
 *
 * @param aligned collectives of the rank lined up with at least one other rank (with a GPU
 *     start timestamp)
 * @param lastCount collectives where it arrived last, however slightly
 * @param lateCount collectives it held up
 * @param lateShare lateCount / aligned
 * @param delayMeanUs mean delay over the collectives it held up
 * @param delayP50Us median of those delays
 * @param delayMaxUs largest delay it caused
 * @param delayTotalMs sum of the delays it caused
 * @param meanArrivalUs mean of (its start − the collective's median start), estimated from a
 *     sample of symmetric collectives (see {@code StragglerAnalysis})
 * @param execMeanUs its mean execution time over its collectives with a GPU start timestamp
 * @param clockOffsetUs estimated clock offset that was subtracted (0 when not estimated)
 * @param clockOffsetSamples collectives the offset was estimated from
 * @param suspect whether it arrives late far more often than chance would make it
 */
public record RankLateness(
    String commId,
    String commName,
    String commType,
    int rank,
    String hostname,
    Long pid,
    long aligned,
    long lastCount,
    long lateCount,
    double lateShare,
    Double delayMeanUs,
    Double delayP50Us,
    Double delayMaxUs,
    double delayTotalMs,
    Double meanArrivalUs,
    Double execMeanUs,
    double clockOffsetUs,
    long clockOffsetSamples,
    boolean suspect) {}
