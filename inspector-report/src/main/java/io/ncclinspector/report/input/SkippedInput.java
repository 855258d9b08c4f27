package io.ncclinspector.report.input;

/** A file that was found but not imported, and why. */
public record SkippedInput(String displayName, String reason) {}
