package io.ncclinspector;

/** Operations a communicator ran while a phase tag was set ({@link NcclInspector#phase}). */
public record PhaseStatistics(String phase, long count, long bytes, long executionNanos) {}
