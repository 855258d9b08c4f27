package io.ncclinspector.examples.nccl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What NVIDIA's reference Inspector wrote for this process ({@code <host>-pid<PID>.log} in its dump
 * directory), read back at the end of a run so that each timed call can be shown with the
 * reference's figure for the same operation. Collectives are matched by name and NCCL's sequence
 * number (which NCCL counts per collective function); point-to-point records, which the reference
 * numbers with a counter of its own per communicator, by that number's range or, in verbose
 * output, by the wall time of their start event.
 */
final class ReferenceOutput {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One reference record. {@code execMicros} is whole microseconds as the reference writes it;
   * {@code startWallMicros} is its start event's wall time (verbose output only, else 0).
   */
  record RefRecord(String commId, int rank, String operation, long sequence, int peer, long messageBytes,
      long execMicros, String timingSource, long startWallMicros) {
    boolean isP2p() {
      return "Send".equals(operation) || "Recv".equals(operation);
    }

    boolean gpuTimed() {
      return "kernel_gpu".equals(timingSource);
    }
  }

  private final List<RefRecord> records;
  private final int damagedLines;
  private final int duplicates;
  private final List<Path> files;
  private final Map<String, RefRecord> collectives = new HashMap<>();

  private ReferenceOutput(List<RefRecord> records, int damagedLines, int duplicates, List<Path> files) {
    this.records = records;
    this.damagedLines = damagedLines;
    this.duplicates = duplicates;
    this.files = files;
    for (RefRecord r : records) {
      if (!r.isP2p()) {
        collectives.putIfAbsent(r.operation() + "#" + r.sequence(), r);
      }
    }
  }

  static ReferenceOutput empty() {
    return new ReferenceOutput(List.of(), 0, 0, List.of());
  }

  /** Reads the files of process {@code pid} in {@code dir} (none: an empty output). */
  static ReferenceOutput read(Path dir, long pid) throws IOException {
    List<Path> files = new ArrayList<>();
    if (dir != null && Files.isDirectory(dir)) {
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*-pid" + pid + ".log")) {
        ds.forEach(files::add);
      }
    }
    files.sort(Comparator.naturalOrder());
    List<String> lines = new ArrayList<>();
    for (Path f : files) {
      lines.addAll(Files.readAllLines(f));
    }
    return parse(lines, files);
  }

  static ReferenceOutput parse(List<String> lines, List<Path> files) {
    List<RefRecord> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    int damaged = 0;
    int dup = 0;
    for (String line : lines) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode n;
      try {
        n = JSON.readTree(line);
      } catch (IOException e) {
        damaged++;
        continue;
      }
      RefRecord r = fromJson(n);
      if (r == null) {
        damaged++;
        continue;
      }
      String key = r.commId() + "/" + r.operation() + "/" + r.sequence();
      if (!seen.add(key)) {
        dup++;
        continue;
      }
      out.add(r);
    }
    return new ReferenceOutput(List.copyOf(out), damaged, dup, List.copyOf(files));
  }

  private static RefRecord fromJson(JsonNode n) {
    JsonNode h = n.path("header");
    String prefix;
    JsonNode perf;
    if (n.has("coll_perf")) {
      prefix = "coll";
      perf = n.get("coll_perf");
    } else if (n.has("p2p_perf")) {
      prefix = "p2p";
      perf = n.get("p2p_perf");
    } else {
      return null;
    }
    String op = perf.path(prefix).asText(null);
    if (op == null || !perf.has(prefix + "_sn")) {
      return null;
    }
    JsonNode ts = perf.path("event_trace_ts");
    return new RefRecord(h.path("id").asText(""), h.path("rank").asInt(-1), op, perf.path(prefix + "_sn").asLong(),
        perf.path("p2p_peer").asInt(-1), perf.path(prefix + "_msg_size_bytes").asLong(),
        perf.path(prefix + "_exec_time_us").asLong(), perf.path(prefix + "_timing_source").asText(""),
        ts.path(prefix + "_start_ts").asLong(0));
  }

  List<RefRecord> records() {
    return records;
  }

  int damagedLines() {
    return damagedLines;
  }

  int duplicates() {
    return duplicates;
  }

  List<Path> files() {
    return files;
  }

  /** The collective of this name and NCCL sequence number, or null. */
  RefRecord collective(String operation, long sequence) {
    return collectives.get(operation + "#" + sequence);
  }

  /**
   * Point-to-point records of one call: by start time within {@code [fromWallNanos, toWallNanos]}
   * where the output has start times (verbose), else by the reference's own numbers
   * {@code firstSn .. firstSn + count - 1}.
   */
  List<RefRecord> p2p(long firstSn, int count, long fromWallNanos, long toWallNanos) {
    List<RefRecord> out = new ArrayList<>();
    for (RefRecord r : records) {
      if (!r.isP2p()) {
        continue;
      }
      boolean match;
      if (r.startWallMicros() > 0) {
        long t = r.startWallMicros() * 1000;
        match = t >= fromWallNanos - 1000 && t <= toWallNanos + 1000; /* the reference's µs resolution */
      } else {
        match = r.sequence() >= firstSn && r.sequence() < firstSn + count;
      }
      if (match) {
        out.add(r);
      }
    }
    return out;
  }
}
