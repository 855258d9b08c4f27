package io.ncclinspector;

import io.ncclinspector.replay.TracePlayer;
import io.ncclinspector.replay.TraceReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What a listener heard while a trace was played through a real inspector (trace → native core →
 * records → analysis → listener), on the trace's clock.
 *
 * @param records every operation completed
 * @param slow the slow-collective callbacks
 * @param summaries the rate-limit summaries
 */
public record ListenedReplay(List<OperationRecord> records, List<SlowCollectiveEvent> slow,
    List<SlowCollectiveSummary> summaries) {

  /** Plays {@code trace} with all operations kept (no size floor) and the given detection. */
  public static ListenedReplay of(Path trace, SlowCollectiveDetection detection, Path workDir) throws IOException {
    List<OperationRecord> records = new CopyOnWriteArrayList<>();
    List<SlowCollectiveEvent> slow = new CopyOnWriteArrayList<>();
    List<SlowCollectiveSummary> summaries = new CopyOnWriteArrayList<>();
    /* Channel recovery off: planting (TracePlanting) rewrites an operation's own kernel-channel
       readings, which recovery would hand to the earlier operation whose work item they are. */
    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().channelRecovery(false)
        .dumpDirectory(Files.createDirectories(workDir)).jsonOutput(false).withoutExporter("jfr").minMessageBytes(0)
        .slowCollectives(detection).build());
    TracePlayer player = null;
    try (inspector) {
      inspector.addListener(new InspectorListener() {
        @Override
        public void operationCompleted(OperationRecord record) {
          records.add(record);
        }

        @Override
        public void slowCollective(SlowCollectiveEvent event) {
          slow.add(event);
        }

        @Override
        public void slowCollectivesSuppressed(SlowCollectiveSummary summary) {
          summaries.add(summary);
        }
      });
      player = TracePlayer.open(inspector, new TraceReader().read(trace), true);
      player.playAll();
    } finally { /* the inspector's close() delivered everything; then what a cut-short trace left open goes */
      if (player != null) {
        try {
          player.finalizeOpen();
        } finally {
          player.close();
        }
      }
    }
    return new ListenedReplay(List.copyOf(records), List.copyOf(slow), List.copyOf(summaries));
  }
}
