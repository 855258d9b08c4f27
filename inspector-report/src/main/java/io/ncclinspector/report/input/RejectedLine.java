package io.ncclinspector.report.input;

/**
 * A line that is not a usable record.
 *
 * @param file the file's display name
 * @param line line number, from 1
 * @param reason why it was skipped
 * @param excerpt the start of the line, control characters replaced
 */
public record RejectedLine(String file, long line, String reason, String excerpt)
    implements java.io.Serializable {}
