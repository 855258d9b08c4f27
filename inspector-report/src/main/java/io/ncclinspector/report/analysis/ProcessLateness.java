package io.ncclinspector.report.analysis;

/**
 * Lateness summed over all communicators of one process (one GPU in the usual one-GPU-per-process
 * setup): the same slow GPU is a different rank in each communicator it belongs to.
 */
public record ProcessLateness(
    String hostname,
    Long pid,
    long communicators,
    long aligned,
    long lateCount,
    double lateShare,
    double delayTotalMs,
    Double delayMeanUs,
    long suspectIn) {}
