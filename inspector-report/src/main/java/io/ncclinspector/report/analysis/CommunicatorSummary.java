package io.ncclinspector.report.analysis;

/**
 * One communicator: who took part, what it ran, how fast, and how far apart its ranks arrived.
 * Straggler fields are null where no collective could be lined up across ranks.
 */
public record CommunicatorSummary(
    String commId,
    String commName,
    String commType,
    int nRanks,
    int nnodes,
    long ranksSeen,
    long hosts,
    long records,
    long collectives,
    long p2p,
    String operations,
    long totalBytes,
    double execTotalMs,
    Double execP50Us,
    Double execP99Us,
    Double busbwP50Gbs,
    Long firstDumpUs,
    Long lastDumpUs,
    Long alignedCollectives,
    Long lateCollectives,
    Double skewP50Us,
    Double skewP99Us,
    Integer topLateRank,
    Double topLateShare) {}
