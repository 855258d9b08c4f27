package io.ncclinspector;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Plants slow collectives into a copy of a recorded trace (testdata/traces/FORMAT.md): the GPU
 * stop timestamp of every kernel channel of a chosen collective that took less than the wanted
 * time is moved so that the channel takes it, as if the collective had waited that much longer
 * after starting as recorded. Nothing else changes: the replay drives the native core exactly as
 * the recorded run did, but for those timestamps.
 */
public final class TracePlanting {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** {@code recordEventState} state of a kernel channel's stop, which carries its GPU stop time. */
  private static final int KERNEL_CH_STOP = 22;

  /** A collective of a traced process: its communicator id, operation and NCCL sequence number. */
  public record Target(long communicatorId, String operation, long sequence) {}

  private TracePlanting() {}

  /**
   * Writes {@code trace} to {@code out} (gzip) with each target's channels stretched to at least
   * the given nanoseconds. Fails if a target is not in the trace or has no GPU-timed channel.
   */
  public static Path plant(Path trace, Map<Target, Long> executionNanos, Path out) throws IOException {
    List<String> lines = readLines(trace);
    Map<Integer, Long> commOfContext = new HashMap<>();
    Map<Integer, Target> targetOfColl = new HashMap<>();
    Map<Integer, Target> targetOfChannel = new HashMap<>();
    Map<Integer, Long> channelStart = new HashMap<>();
    Map<Target, Long> longest = new HashMap<>();
    List<ObjectNode> parsed = new ArrayList<>(lines.size());
    for (String line : lines) {
      ObjectNode o = parse(line);
      parsed.add(o);
      if (o == null) {
        continue;
      }
      String ev = o.path("ev").asText();
      if (ev.equals("init")) {
        commOfContext.put(o.path("ctx").asInt(), Long.parseUnsignedLong(o.path("commId").asText().substring(2), 16));
      } else if (ev.equals("start") && o.path("type").asText().equals("Coll")) {
        Target t = new Target(commOfContext.getOrDefault(o.path("ctx").asInt(), 0L), o.path("func").asText(),
            o.path("seq").asLong());
        if (executionNanos.containsKey(t)) {
          targetOfColl.put(o.path("h").asInt(), t);
        }
      } else if (ev.equals("start") && o.path("type").asText().equals("KernelCh")) {
        Target t = targetOfColl.get(o.path("parent").asInt());
        if (t != null) {
          targetOfChannel.put(o.path("h").asInt(), t);
          channelStart.put(o.path("h").asInt(), o.path("pTimer").asLong());
        }
      } else if (ev.equals("state") && o.path("state").asInt() == KERNEL_CH_STOP) {
        int h = o.path("h").asInt();
        Target t = targetOfChannel.get(h);
        if (t != null) {
          longest.merge(t, o.path("pTimer").asLong() - channelStart.get(h), Math::max);
        }
      }
    }
    for (Target t : executionNanos.keySet()) {
      if (!longest.containsKey(t)) {
        throw new IllegalArgumentException("no GPU-timed kernel channel of " + t + " in " + trace);
      }
    }
    Files.createDirectories(out.getParent());
    try (BufferedWriter w = new BufferedWriter(new OutputStreamWriter(
        new GZIPOutputStream(Files.newOutputStream(out)), StandardCharsets.UTF_8))) {
      for (int i = 0; i < lines.size(); i++) {
        ObjectNode o = parsed.get(i);
        if (o != null && o.path("ev").asText().equals("state") && o.path("state").asInt() == KERNEL_CH_STOP) {
          Target t = targetOfChannel.get(o.path("h").asInt());
          if (t != null) {
            int h = o.path("h").asInt();
            o.put("pTimer", Math.max(o.path("pTimer").asLong(), channelStart.get(h) + executionNanos.get(t)));
            w.write(JSON.writeValueAsString(o));
            w.newLine();
            continue;
          }
        }
        w.write(lines.get(i));
        w.newLine();
      }
    }
    return out;
  }

  private static ObjectNode parse(String line) {
    try {
      return JSON.readTree(line) instanceof ObjectNode o ? o : null;
    } catch (JsonProcessingException e) {
      return null; /* a line cut short by a crash stays as it was: the reader reports it */
    }
  }

  private static List<String> readLines(Path trace) throws IOException {
    List<String> lines = new ArrayList<>();
    boolean gz = trace.getFileName().toString().endsWith(".gz");
    try (BufferedReader r = new BufferedReader(new InputStreamReader(gz
        ? new GZIPInputStream(Files.newInputStream(trace)) : Files.newInputStream(trace), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        lines.add(line);
      }
    }
    return lines;
  }
}
