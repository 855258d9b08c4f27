package io.ncclinspector.internal;

import static io.ncclinspector.internal.TraceEventLayout.*;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.ncclinspector.nativecore.InspectorNative;
import io.ncclinspector.internal.output.AccountedFile;
import io.ncclinspector.internal.output.FileNames;
import io.ncclinspector.internal.output.OutputFileSystem;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
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
 *
 * <p>The file is a series of gzip members (every 256 KiB of lines and at each flush), which any
 * gzip reader reads as one stream; each member is written whole or not at all
 * ({@link AccountedFile}), so events are counted written exactly when they are in the file, a
 * full disk loses only what cannot be held (counted apart from the size bound), and a killed
 * process leaves a file readable up to its last flush. The file is created at the first event,
 * under a name not taken yet ({@code trace-pid<pid>.jsonl.gz}, then {@code trace-pid<pid>-1.jsonl.gz}, ...).
 */
public final class TraceRecording {
  private static final Logger log = LoggerFactory.getLogger(TraceRecording.class);
  private static final int MAX_HANDLES = 1 << 20;
  private static final Map<Integer, String> TYPE_NAMES = Map.ofEntries(
      Map.entry(1, "Group"), Map.entry(1 << 1, "Coll"), Map.entry(1 << 2, "P2p"),
      Map.entry(1 << 3, "ProxyOp"), Map.entry(1 << 4, "ProxyStep"), Map.entry(1 << 5, "ProxyCtrl"),
      Map.entry(1 << 6, "KernelCh"), Map.entry(1 << 7, "NetPlugin"), Map.entry(1 << 8, "GroupApi"),
      Map.entry(1 << 9, "CollApi"), Map.entry(1 << 10, "P2pApi"), Map.entry(1 << 11, "KernelLaunch"),
      Map.entry(1 << 12, "CeColl"), Map.entry(1 << 13, "CeSync"), Map.entry(1 << 14, "CeBatch"));

  private static final int MEMBER_BYTES = 256 << 10;
  private static final int MAX_PENDING_BYTES = 16 << 20;
  private static final long RETRY_NANOS = java.time.Duration.ofSeconds(1).toNanos();

  private final AccountedFile file;
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
  /** The lines of the member being collected (uncompressed). */
  private final ByteArrayOutputStream lines = new ByteArrayOutputStream(MEMBER_BYTES + 4096);
  private final JsonGenerator json;
  private final AtomicLong droppedAtLimit = new AtomicLong();
  private long linesBytes; /* uncompressed bytes of every line taken so far: the size bound */
  private int memberEvents;
  private int nextContext = 1;
  private int nextHandle = 1;

  private TraceRecording(AccountedFile file, long maxBytes) throws IOException {
    this.file = file;
    this.maxBytes = maxBytes;
    this.json = new JsonFactory().createGenerator(lines, JsonEncoding.UTF8);
    this.json.setRootValueSeparator(null);
  }

  /**
   * Switches native recording on; the file ({@code trace-pid<pid>.jsonl.gz} in {@code directory},
   * or the next free name) is created at the first event. Returns null (after logging why) if
   * recording cannot start: it is a diagnostic and must not stop profiling.
   */
  public static TraceRecording start(Path directory, long pid, long maxBytes, int ringCells) {
    return start(directory, pid, maxBytes, ringCells, OutputFileSystem.local());
  }

  /** As {@link #start(Path, long, long, int)}, on a given file system. */
  public static TraceRecording start(Path directory, long pid, long maxBytes, int ringCells, OutputFileSystem fs) {
    try {
      AccountedFile file = new AccountedFile(fs, new FileNames(directory.toAbsolutePath(), "trace-pid" + pid, ".jsonl.gz"),
          "NCCL Inspector raw event recording", 1, MAX_PENDING_BYTES, RETRY_NANOS);
      file.preflight();
      TraceRecording recording = new TraceRecording(file, maxBytes);
      if (InspectorNative.traceStart(ringCells) != 0) {
        log.error("NCCL Inspector: raw event recording could not start (no memory for its ring)");
        return null;
      }
      return recording;
    } catch (IOException | RuntimeException e) {
      log.error("NCCL Inspector: cannot record raw events to {}: {}", directory, e.toString());
      return null;
    }
  }

  /** The recording file: the one created, or the name it will get at the first event. */
  public Path file() {
    return file.plannedPath();
  }

  /** Events in the file. */
  public long eventsWritten() {
    return file.written();
  }

  /** Events not written because the recording reached its size bound. */
  public long eventsDroppedAtLimit() {
    return droppedAtLimit.get();
  }

  /** Events that will never be in the file because it could not be written (a full disk). */
  public long eventsNotWritten() {
    return file.lost();
  }

  /** The first reason the file could not be written, if it ever could not. */
  public java.util.Optional<String> outputError() {
    return file.firstError();
  }

  /** Drains what the native ring holds; returns the number of bytes drained. Dump thread only. */
  public int drainOnce() {
    buffer.clear();
    int bytes = (int) InspectorNative.drainTrace(buffer, buffer.capacity());
    try {
      for (int o = 0; o + EVENT_BYTES <= bytes; o += EVENT_BYTES) {
        if (linesBytes + (lines.size() - counted) + json.getOutputBuffered() >= maxBytes) {
          droppedAtLimit.incrementAndGet();
          continue;
        }
        writeEvent(o);
        memberEvents++;
      }
      json.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e); /* in-memory stream: not reached */
    }
    linesBytes += lines.size() - counted;
    counted = lines.size();
    if (lines.size() >= MEMBER_BYTES) {
      endMember();
    }
    return bytes;
  }

  private int counted; /* bytes of `lines` already added to linesBytes */

  /** Compresses the collected lines into one gzip member and hands it to the file. */
  private void endMember() {
    if (memberEvents == 0) {
      return;
    }
    /* The fastest compression: the writer must keep up with NCCL's bursts (a trace compresses
       about 10:1 at this level, against about 13:1 at the default). */
    try (GZIPOutputStream gz = new GZIPOutputStream(file.stream(), 1 << 16) {
      {
        def.setLevel(java.util.zip.Deflater.BEST_SPEED);
      }
    }) {
      lines.writeTo(gz);
    } catch (IOException e) {
      throw new UncheckedIOException(e); /* in-memory stream: not reached */
    }
    file.endUnit(memberEvents);
    lines.reset();
    counted = 0;
    memberEvents = 0;
  }

  /** Writes what was recorded so far (a member per flush: a killed process loses at most that). */
  public void flush() {
    endMember();
    file.flush();
  }

  /** Stops native recording, writes what is left and closes the file. */
  public void finish() {
    InspectorNative.traceStop();
    while (drainOnce() > 0) {
      // drain to the end
    }
    endMember();
    file.close();
  }

  private void writeEvent(int o) throws IOException {
    ByteBuffer b = buffer;
    int ev = b.get(o + EV);
    json.writeStartObject();
    json.writeNumberField("t", b.getLong(o + T_MONO));
    json.writeNumberField("wall", b.getLong(o + T_WALL));
    json.writeNumberField("tid", Integer.toUnsignedLong(b.getInt(o + TID)));
    if (ev == EV_INIT) {
      json.writeStringField("ev", "init");
      int ctx = nextContext++;
      contexts.put(b.getLong(o + CONTEXT), ctx);
      json.writeNumberField("ctx", ctx);
      json.writeStringField("commId", "0x" + Long.toHexString(b.getLong(o + A)));
      json.writeStringField("commName", string(o + COMM_NAME, COMM_NAME_BYTES));
      json.writeNumberField("nNodes", b.getInt(o + NNODES));
      json.writeNumberField("nranks", b.getInt(o + NRANKS));
      json.writeNumberField("rank", b.getInt(o + RANK));
      json.writeNumberField("abi", Byte.toUnsignedInt(b.get(o + ABI_VERSION)));
      if (b.getInt(o + I0) != 0) {
        json.writeNumberField("ncclVersion", b.getInt(o + I0));
      }
    } else if (ev == EV_START) {
      writeStart(o);
    } else if (ev == EV_STOP) {
      json.writeStringField("ev", "stop");
      json.writeNumberField("h", handleId(b.getLong(o + HANDLE)));
    } else if (ev == EV_STATE) {
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
    } else {
      json.writeStringField("ev", "fini");
      json.writeNumberField("ctx", contexts.getOrDefault(b.getLong(o + CONTEXT), 0));
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
        json.writeStringField("func", string(o + FUNC, STRING_BYTES));
        json.writeNumberField("count", b.getLong(o + COUNT));
        json.writeNumberField("root", b.getInt(o + PEER_OR_ROOT));
        json.writeStringField("datatype", string(o + DATATYPE, STRING_BYTES));
        json.writeNumberField("nChannels", Byte.toUnsignedInt(b.get(o + N_CHANNELS)));
        json.writeNumberField("nWarps", Byte.toUnsignedInt(b.get(o + N_WARPS)));
        json.writeStringField("algo", string(o + ALGO, STRING_BYTES));
        json.writeStringField("proto", string(o + PROTO, STRING_BYTES));
        json.writeNumberField("parentGroup", handleId(b.getLong(o + PARENT_GROUP)));
      }
      case "P2p" -> {
        json.writeStringField("func", string(o + FUNC, STRING_BYTES));
        json.writeStringField("datatype", string(o + DATATYPE, STRING_BYTES));
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
        json.writeStringField("func", string(o + FUNC, STRING_BYTES));
        json.writeNumberField("count", b.getLong(o + COUNT));
        json.writeStringField("datatype", string(o + DATATYPE, STRING_BYTES));
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
}
