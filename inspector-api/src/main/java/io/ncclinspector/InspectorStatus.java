package io.ncclinspector;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where an inspector stands, for a program or a command line to check: whether it profiles,
 * whether NCCL ever reached it, and whether everything it received was written.
 *
 * @param state active, disabled by configuration, or closed
 * @param communicatorsSeen NCCL communicators the inspector heard of (0: NCCL never called it)
 * @param recordsReceived records drained from the native core
 * @param recordsWritten records whose line is in the JSON output file
 * @param recordsQuarantined records whose line is in the quarantine file
 * @param recordsNotWritten records that will never be in either file (output failed)
 * @param outputFile the JSON output file, once created (it is created at the first record)
 * @param outputError the first reason output could not be written, if it ever could not
 * @param traceEventsNotWritten raw-recording events lost to a failing file (not the size bound)
 * @param listenersAbandoned listeners that did not finish in time at close or removal
 * @param problems each problem above in one sentence (empty when there is none)
 */
public record InspectorStatus(
    State state,
    long communicatorsSeen,
    long recordsReceived,
    long recordsWritten,
    long recordsQuarantined,
    long recordsNotWritten,
    Optional<Path> outputFile,
    Optional<String> outputError,
    long traceEventsNotWritten,
    long listenersAbandoned,
    List<String> problems) {

  /** What the inspector is doing. */
  public enum State { ACTIVE, DISABLED, CLOSED }

  public InspectorStatus {
    problems = List.copyOf(problems);
  }

  /** Whether output was lost: records or recorded events that will never be in their files. */
  public boolean outputLost() {
    return recordsNotWritten > 0 || traceEventsNotWritten > 0;
  }
}
