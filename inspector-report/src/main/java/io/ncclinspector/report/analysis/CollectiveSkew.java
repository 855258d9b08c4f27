package io.ncclinspector.report.analysis;

/**
 * One collective lined up across ranks: (communicator, operation, sequence number).
 *
 * @param skewUs last start − first start
 * @param delayUs last start − mean start of the other ranks: how long the others waited for
 *     the last one, on average
 * @param leadUs last start − second-to-last start: how long the last rank alone held the rest
 * @param lastExecUs the last rank's execution time (short: it did not wait)
 * @param meanExecUs the ranks' mean execution time (long when they waited)
 */
public record CollectiveSkew(
    String commId,
    String commName,
    String op,
    long sn,
    int nRanks,
    long ranksAligned,
    Long msgSizeBytes,
    long firstStartNs,
    double skewUs,
    double delayUs,
    double leadUs,
    int lastRank,
    String lastHostname,
    Long lastPid,
    Double lastExecUs,
    Double meanExecUs,
    Double maxExecUs) {}
