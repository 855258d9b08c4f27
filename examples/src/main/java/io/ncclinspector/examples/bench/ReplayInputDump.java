package io.ncclinspector.examples.bench;

import io.ncclinspector.replay.TraceEvents;
import io.ncclinspector.replay.TraceReader;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Writes a recorded trace as the trace driver's packed events, for the native replay benchmark
 * ({@code inspector-native/src/bench/c/bench_trace_replay.c}, run by {@code bench/native-replay}):
 * it drives the same calls through the core in a process of its own, without a JVM beside it, so
 * that a profiler sees the core's functions with their symbols.
 *
 * <p>File layout, little-endian: the magic {@code NIRP}, the version (1), the event count, the
 * largest handle and context ids, the bytes of one event, the number of strings; then each
 * string (its length, its UTF-8 bytes) in the order of the driver's ids, from 1; then the events.
 *
 * <pre>
 * java -cp ... io.ncclinspector.examples.bench.ReplayInputDump TRACE OUT
 * </pre>
 */
public final class ReplayInputDump {
  static final int VERSION = 1;

  private ReplayInputDump() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: ReplayInputDump TRACE OUT");
      System.exit(2);
    }
    TraceReader reader = new TraceReader();
    TraceEvents events = reader.read(Path.of(args[0]));
    String[] byId = stringsById(reader.internedStrings());
    try (OutputStream file = Files.newOutputStream(Path.of(args[1]));
         DataOutputStream out = new DataOutputStream(new BufferedOutputStream(file))) {
      out.writeBytes("NIRP");
      for (int v : new int[] {VERSION, events.count(), events.maxHandleId(), events.maxContextId(),
          TraceEvents.eventBytes(), byId.length}) {
        out.writeInt(Integer.reverseBytes(v));
      }
      for (String s : byId) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(Integer.reverseBytes(b.length));
        out.write(b);
      }
      ByteBuffer packed = events.events().duplicate();
      packed.clear().limit(events.count() * TraceEvents.eventBytes());
      byte[] bytes = new byte[packed.remaining()];
      packed.get(bytes);
      out.write(bytes);
    }
    System.out.printf("%d events, %d strings: %s%n", events.count(), byId.length, args[1]);
  }

  /** The strings in id order (ids 1..n, as the driver gives them in a fresh process). */
  private static String[] stringsById(Map<String, Integer> interned) {
    String[] byId = new String[interned.size()];
    interned.forEach((s, id) -> {
      if (id < 1 || id > byId.length || byId[id - 1] != null) {
        throw new IllegalStateException("the driver's string ids are not 1.." + byId.length + ": " + s + " = " + id);
      }
      byId[id - 1] = s;
    });
    return byId;
  }
}
