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
 * @param cutShort where reading the trace stopped before its end (a gzip stream cut off, damage),
 *     if it did: the events before were replayed
 * @param status the inspector's status at the end: communicators seen, records not written and why
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
    Optional<Recording> recording,
    Optional<String> cutShort,
    io.ncclinspector.InspectorStatus status) {

  /**
   * A raw event recording: its file, callbacks written, callbacks past its size bound, callbacks
   * lost because the file could not be written (and why).
   */
  public record Recording(Path file, long eventsWritten, long eventsDroppedAtLimit, long eventsNotWritten,
      Optional<String> error) {}

  /** Whether output was lost: records or recorded callbacks that never reached their files. */
  public boolean outputLost() {
    return status.outputLost();
  }


  public ReplayResult {
    problems = List.copyOf(problems);
  }
}
