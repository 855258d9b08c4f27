package io.ncclinspector.internal;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.ncclinspector.nativecore.InspectorNative;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The raw event recording's writer: drains the native trace ring (trace_recorder.h) on the dump
 * thread and writes one line per callback in the recorded-trace format of testdata/traces/FORMAT.md,
 * gzip-compressed, so that {@code bin/nccl-inspector replay} reproduces the run anywhere.
 *
 * <p>Handles and contexts are numbered as the format wants: a context gets an id at its init, a
 * handle at the start event that returned it (handles are unique while alive: generation-tagged).
 * The file is bounded: once {@code maxBytes} of uncompressed lines are written, further events are
 * counted, not written.
 */
public final class TraceRecording {
  private static final Logger log = LoggerFactory.getLogger(TraceRecording.class);
  /** trace_event offsets (trace_recorder.h). */
  private static final int EV = 4, TID = 8, TYPE = 12, T_MONO = 16, T_WALL = 24, CONTEXT = 32,
      HANDLE = 40, PARENT = 48, PARENT_GROUP = 56, RANK = 64, PEER_OR_ROOT = 68, A = 72, COUNT = 80,
      N_CHANNELS = 6, N_WARPS = 7, CHANNEL_ID = 88, GRAPH_CAPTURED = 89, STATE = 92, NNODES = 96,
      NRANKS = 100, I0 = 104, I1 = 108, I2 = 112, I3 = 116, STREAM = 120, FUNC = 128, DATATYPE = 144,
      ALGO = 160, PROTO = 176, EVENT_BYTES = 192;
  private static final int MAX_HANDLES = 1 << 20;
  private static final Map<Integer, String> TYPE_NAMES = Map.ofEntries(
      Map.entry(1, "Group"), Map.entry(1 << 1, "Coll"), Map.entry(1 << 2, "P2p"),
      Map.entry(1 << 3, "ProxyOp"), Map.entry(1 << 4, "ProxyStep"), Map.entry(1 << 5, "ProxyCtrl"),
      Map.entry(1 << 6, "KernelCh"), Map.entry(1 << 7, "NetPlugin"), Map.entry(1 << 8, "GroupApi"),
      Map.entry(1 << 9, "CollApi"), Map.entry(1 << 10, "P2pApi"), Map.entry(1 << 11, "KernelLaunch"),
      Map.entry(1 << 12, "CeColl"), Map.entry(1 << 13, "CeSync"), Map.entry(1 << 14, "CeBatch"));

  private final Path file;
  private final long maxBytes;
  private final ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
  private final Map<Long, Integer> contexts = new HashMap<>();
  /** Handle values to ids, oldest forgotten first beyond MAX_HANDLES. */
  private final Map<Long, Integer> handles = new LinkedHashMap<>(1024, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, Integer> eldest) {
      return size() > MAX_HANDLES;
    }
  };
  private final CountingStream counted;
  private final JsonGenerator json;
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong droppedAtLimit = new AtomicLong();
  private int nextContext = 1;
  private int nextHandle = 1;

  private TraceRecording(Path file, long maxBytes, OutputStream out) throws IOException {
    this.file = file;
    this.maxBytes = maxBytes;
    this.counted = new CountingStream(out);
    this.json = new JsonFactory().createGenerator(counted, JsonEncoding.UTF8);
    this.json.setRootValueSeparator(null);
  }

  /**
   * Opens the recording file and switches native recording on. Returns null (after logging why)
   * if either fails: recording is a diagnostic and must not stop profiling.
   */
  public static TraceRecording start(Path file, long maxBytes, int ringCells) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      OutputStream out = new GZIPOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16), 1 << 16);
      TraceRecording recording = new TraceRecording(file, maxBytes, out);
      if (InspectorNative.traceStart(ringCells) != 0) {
        recording.close();
        log.error("NCCL Inspector: raw event recording could not start (no memory for its ring)");
        return null;
      }
      return recording;
    } catch (IOException | RuntimeException e) {
      log.error("NCCL Inspector: cannot record raw events to {}: {}", file, e.toString());
      return null;
    }
  }

  public Path file() {
    return file;
  }

  public long eventsWritten() {
    return written.get();
  }

  public long eventsDroppedAtLimit() {
    return droppedAtLimit.get();
  }

  /** Drains what the native ring holds; returns the number of bytes drained. Dump thread only. */
  public int drainOnce() {
    buffer.clear();
    int bytes = (int) InspectorNative.drainTrace(buffer, buffer.capacity());
    try {
      for (int o = 0; o + EVENT_BYTES <= bytes; o += EVENT_BYTES) {
        if (counted.count + json.getOutputBuffered() >= maxBytes) {
          droppedAtLimit.incrementAndGet();
          continue;
        }
        writeEvent(o);
        written.incrementAndGet();
      }
    } catch (IOException e) {
      log.error("NCCL Inspector: writing the raw event recording {} failed: {}", file, e.toString());
      droppedAtLimit.addAndGet(Math.max(bytes / EVENT_BYTES, 0));
    }
    return bytes;
  }

  /** Stops native recording, writes what is left and closes the file. */
  public void finish() {
    InspectorNative.traceStop();
    while (drainOnce() > 0) {
      // drain to the end
    }
    close();
  }

  private void close() {
    try {
      json.close();
      counted.close();
    } catch (IOException e) {
      log.error("NCCL Inspector: closing the raw event recording {} failed: {}", file, e.toString());
    }
  }

  private void writeEvent(int o) throws IOException {
    ByteBuffer b = buffer;
    int ev = b.get(o + EV);
    json.writeStartObject();
    json.writeNumberField("t", b.getLong(o + T_MONO));
    json.writeNumberField("wall", b.getLong(o + T_WALL));
    json.writeNumberField("tid", Integer.toUnsignedLong(b.getInt(o + TID)));
    switch (ev) {
      case 0 -> {
        json.writeStringField("ev", "init");
        int ctx = nextContext++;
        contexts.put(b.getLong(o + CONTEXT), ctx);
        json.writeNumberField("ctx", ctx);
        json.writeStringField("commId", "0x" + Long.toHexString(b.getLong(o + A)));
        json.writeStringField("commName", string(o + FUNC, 64));
        json.writeNumberField("nNodes", b.getInt(o + NNODES));
        json.writeNumberField("nranks", b.getInt(o + NRANKS));
        json.writeNumberField("rank", b.getInt(o + RANK));
      }
      case 1 -> writeStart(o);
      case 2 -> {
        json.writeStringField("ev", "stop");
        json.writeNumberField("h", handleId(b.getLong(o + HANDLE)));
      }
      case 3 -> {
        json.writeStringField("ev", "state");
        json.writeNumberField("h", handleId(b.getLong(o + HANDLE)));
        int state = b.getInt(o + STATE);
        json.writeNumberField("state", state);
        long arg = b.getLong(o + A);
        if (state == 22) {
          json.writeNumberField("pTimer", arg);
        } else if ((state >= 8 && state <= 12) || state == 20) {
          json.writeNumberField("transSize", arg);
        } else if (state >= 13 && state <= 18) {
          json.writeNumberField("appendedProxyOps", arg);
        }
      }
      default -> {
        json.writeStringField("ev", "fini");
        json.writeNumberField("ctx", contexts.getOrDefault(b.getLong(o + CONTEXT), 0));
      }
    }
    json.writeEndObject();
    json.writeRaw('\n');
  }

  private void writeStart(int o) throws IOException {
    ByteBuffer b = buffer;
    int type = b.getInt(o + TYPE);
    String typeName = TYPE_NAMES.getOrDefault(type, "Unknown");
    int h = nextHandle++;
    long value = b.getLong(o + HANDLE);
    if (value != 0) {
      handles.put(value, h);
    }
    json.writeStringField("ev", "start");
    json.writeNumberField("ctx", contexts.getOrDefault(b.getLong(o + CONTEXT), 0));
    json.writeNumberField("h", h);
    json.writeStringField("type", typeName);
    json.writeNumberField("parent", handleId(b.getLong(o + PARENT)));
    json.writeNumberField("rank", b.getInt(o + RANK));
    switch (typeName) {
      case "Coll" -> {
        json.writeNumberField("seq", b.getLong(o + A));
        json.writeStringField("func", string(o + FUNC, 16));
        json.writeNumberField("count", b.getLong(o + COUNT));
        json.writeNumberField("root", b.getInt(o + PEER_OR_ROOT));
        json.writeStringField("datatype", string(o + DATATYPE, 16));
        json.writeNumberField("nChannels", Byte.toUnsignedInt(b.get(o + N_CHANNELS)));
        json.writeNumberField("nWarps", Byte.toUnsignedInt(b.get(o + N_WARPS)));
        json.writeStringField("algo", string(o + ALGO, 16));
        json.writeStringField("proto", string(o + PROTO, 16));
        json.writeNumberField("parentGroup", handleId(b.getLong(o + PARENT_GROUP)));
      }
      case "P2p" -> {
        json.writeStringField("func", string(o + FUNC, 16));
        json.writeStringField("datatype", string(o + DATATYPE, 16));
        json.writeNumberField("count", b.getLong(o + COUNT));
        json.writeNumberField("peer", b.getInt(o + PEER_OR_ROOT));
        json.writeNumberField("nChannels", Byte.toUnsignedInt(b.get(o + N_CHANNELS)));
        json.writeNumberField("parentGroup", handleId(b.getLong(o + PARENT_GROUP)));
      }
      case "KernelCh" -> {
        json.writeNumberField("channelId", Byte.toUnsignedInt(b.get(o + CHANNEL_ID)));
        json.writeNumberField("pTimer", b.getLong(o + A));
      }
      case "ProxyOp" -> {
        json.writeNumberField("pid", b.getInt(o + I0));
        json.writeNumberField("channelId", Byte.toUnsignedInt(b.get(o + CHANNEL_ID)));
        json.writeNumberField("peer", b.getInt(o + PEER_OR_ROOT));
        json.writeNumberField("nSteps", b.getInt(o + I1));
        json.writeNumberField("chunkSize", b.getInt(o + I2));
        json.writeNumberField("isSend", b.getInt(o + I3));
      }
      case "ProxyStep" -> json.writeNumberField("step", b.getInt(o + I0));
      case "GroupApi" -> {
        json.writeNumberField("graphCaptured", b.get(o + GRAPH_CAPTURED));
        json.writeNumberField("groupDepth", b.getInt(o + I0));
      }
      case "CollApi", "P2pApi", "CeColl" -> {
        json.writeStringField("func", string(o + FUNC, 16));
        json.writeNumberField("count", b.getLong(o + COUNT));
        json.writeStringField("datatype", string(o + DATATYPE, 16));
        if (!typeName.equals("P2pApi")) {
          json.writeNumberField("root", b.getInt(o + PEER_OR_ROOT));
        }
        if (typeName.equals("CeColl")) {
          json.writeNumberField("seq", b.getLong(o + A));
        }
        json.writeStringField("stream", "0x" + Long.toHexString(b.getLong(o + STREAM)));
        json.writeNumberField("graphCaptured", b.get(o + GRAPH_CAPTURED));
      }
      case "KernelLaunch" -> json.writeStringField("stream", "0x" + Long.toHexString(b.getLong(o + STREAM)));
      default -> { }
    }
  }

  private int handleId(long value) {
    return value == 0 ? 0 : handles.getOrDefault(value, 0);
  }

  private String string(int offset, int max) {
    int n = 0;
    while (n < max && buffer.get(offset + n) != 0) {
      n++;
    }
    byte[] bytes = new byte[n];
    buffer.get(offset, bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** Counts the uncompressed bytes handed to the gzip stream (the recording's bound). */
  private static final class CountingStream extends OutputStream {
    private final OutputStream out;
    private long count;

    CountingStream(OutputStream out) {
      this.out = out;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      count += len;
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }
}
