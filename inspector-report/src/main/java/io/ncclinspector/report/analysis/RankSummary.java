package io.ncclinspector.report.analysis;

/**
 * One rank of one communicator. Execution-time figures are over the records the performance
 * figures use; a rank that others wait for has the shortest times, its victims the longest.
 */
public record RankSummary(
    String commId,
    String commName,
    String commType,
    int rank,
    String hostname,
    Long pid,
    long records,
    long usedRecords,
    long totalBytes,
    double execTotalMs,
    Double execP50Us,
    Double execP90Us,
    Double execP99Us,
    Double execMeanUs,
    Double busbwP50Gbs) {}
