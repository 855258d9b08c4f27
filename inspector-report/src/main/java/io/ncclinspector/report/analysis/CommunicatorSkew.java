package io.ncclinspector.report.analysis;

/** Arrival skew over the aligned collectives of one communicator. */
public record CommunicatorSkew(
    String commId,
    long aligned,
    long late,
    double skewP50Us,
    double skewP99Us,
    double delayP99Us,
    Integer topLateRank,
    Double topLateShare) {}
