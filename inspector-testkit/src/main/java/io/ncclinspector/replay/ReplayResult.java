package io.ncclinspector.replay;

import io.ncclinspector.EventCounters;
import io.ncclinspector.InspectorStatus;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a replay did.
 *
 * @param trace the trace replayed
 * @param traceEvents callbacks in the trace
 * @param callsMade callbacks made into the plugin (the trace's, minus those NCCL would not make
 *     for the plugin's activation mask)
 * @param counters the inspector's drop and note counters at the end
 * @param problems trace lines that could not be used
 * @param complete whether the trace ends with a communicator finalize
 * @param cutShort where reading the trace stopped before its end (a gzip stream cut off, damage),
 *     if it did: the events before were replayed
 * @param status the inspector's status at the end: records written, files, anything lost and why
 * @param linesSkipped trace lines that could not be used, all of them ({@code problems} lists the
 *     first ones)
 * @param damaged whether reading the trace stopped at damage that hides events the file holds
 *     (corrupt gzip data, a read error): the replay is incomplete
 */
public record ReplayResult(
    Path trace,
    int traceEvents,
    long callsMade,
    EventCounters counters,
    List<String> problems,
    boolean complete,
    Optional<String> cutShort,
    InspectorStatus status,
    long linesSkipped,
    boolean damaged) {

  public ReplayResult {
    Objects.requireNonNull(status, "status");
    problems = List.copyOf(problems);
  }

  /** The JSON Lines file written (empty if JSON output was off or nothing was written). */
  public Optional<Path> outputFile() {
    return status.outputFile();
  }

  /** Records the inspector wrote. */
  public long recordsWritten() {
    return status.records().written();
  }

  /** Records written to the quarantine file (GPU timestamps not trusted). */
  public long recordsQuarantined() {
    return status.records().quarantined();
  }

  /** The raw event recording made during the replay, if recording was on. */
  public Optional<InspectorStatus.Recording> recording() {
    return status.recording();
  }

  /** Whether output was lost: records or recorded callbacks that never reached their files. */
  public boolean outputLost() {
    return status.outputLost();
  }
}
