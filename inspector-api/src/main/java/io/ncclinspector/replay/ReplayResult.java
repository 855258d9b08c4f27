package io.ncclinspector.replay;

import io.ncclinspector.EventCounters;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What a replay did.
 *
 * @param trace the trace replayed
 * @param outputFile the JSON Lines file written (empty if JSON output was off)
 * @param traceEvents callbacks in the trace
 * @param callsMade callbacks made into the plugin (the trace's, minus those NCCL would not make
 *     for the plugin's activation mask)
 * @param recordsWritten records the inspector wrote
 * @param recordsQuarantined records written to the quarantine file (GPU timestamps not trusted)
 * @param counters the inspector's drop and note counters at the end
 * @param problems trace lines that could not be used
 * @param complete whether the trace ends with a communicator finalize
 * @param recording the raw event recording made during the replay, if recording was on
 */
public record ReplayResult(
    Path trace,
    Optional<Path> outputFile,
    int traceEvents,
    long callsMade,
    long recordsWritten,
    long recordsQuarantined,
    EventCounters counters,
    List<String> problems,
    boolean complete,
    Optional<Recording> recording) {

  /** A raw event recording: its file, callbacks written, callbacks past its size bound. */
  public record Recording(Path file, long eventsWritten, long eventsDroppedAtLimit) {}


  public ReplayResult {
    problems = List.copyOf(problems);
  }
}
