package io.ncclinspector.djl;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.Phase;
import io.ncclinspector.replay.TracePlayer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The bundled NCCL trace and reference runs over it. A reference run plays the same pieces of the
 * trace as a DJL test does, but sets the step and phase tags itself, through the inspector API;
 * the tags the listener gives must come out identical record for record.
 */
final class TraceSchedule {
  /** Operations (collective and P2P) in the bundled trace. */
  static final int OPERATIONS = 262;

  /** A piece of the trace played under one step and phase tag. */
  record Segment(long step, String phase, int operations) {}

  private final List<Segment> segments = new ArrayList<>();

  static Path trace() {
    String property = System.getProperty("nccl.inspector.trace");
    Path path = property != null ? Path.of(property) : Path.of("../examples/traces/h3_mix-trace-pid1061.jsonl.gz");
    if (!Files.isRegularFile(path)) {
      throw new IllegalStateException("bundled trace not found: " + path.toAbsolutePath());
    }
    return path;
  }

  static InspectorConfig.Builder config(Path dumpDirectory) {
    return InspectorConfig.builder().dumpDirectory(dumpDirectory).jsonOutput(false).minMessageBytes(0)
        .requireKernelTiming(false);
  }

  TraceSchedule add(long step, String phase, int operations) {
    segments.add(new Segment(step, phase, operations));
    return this;
  }

  /** Plays the schedule with its own inspector and tags; returns the record tags it produced. */
  Map<String, String> referenceTags(Path dumpDirectory) throws Exception {
    RecordLog log = new RecordLog();
    try (NcclInspector inspector = NcclInspector.enable(config(dumpDirectory).build())) {
      inspector.addListener(log);
      try (TracePlayer player = TracePlayer.open(inspector, trace())) {
        for (Segment s : segments) {
          inspector.step(s.step());
          try (Phase p = inspector.phase(s.phase())) {
            player.playOperations(s.operations());
          }
        }
      }
      inspector.clearStep();
    } /* closing delivers every record, the unfinished ones included */
    return log.tags();
  }
}
