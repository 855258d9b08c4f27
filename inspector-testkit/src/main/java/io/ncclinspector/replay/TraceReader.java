package io.ncclinspector.replay;

import static io.ncclinspector.replay.DriverEventLayout.*;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import io.ncclinspector.format.CheckedGzipInputStream;
import io.ncclinspector.format.GzipDamageException;

/**
 * Reads a recorded NCCL profiler trace (testdata/traces/FORMAT.md; plain or gzip JSON Lines) into
 * packed driver events. A line that is not valid JSON (a run that crashed mid-line) or lacks a
 * field it needs is reported with its file and line number and skipped, never fatal.
 */
public final class TraceReader {
  private static final Pattern PID_IN_NAME = Pattern.compile("pid(\\d+)");
  private static final Map<String, Integer> TYPE_BITS = Map.ofEntries(
      Map.entry("Group", 1), Map.entry("Coll", 1 << 1), Map.entry("P2p", 1 << 2),
      Map.entry("ProxyOp", 1 << 3), Map.entry("ProxyStep", 1 << 4), Map.entry("ProxyCtrl", 1 << 5),
      Map.entry("KernelCh", 1 << 6), Map.entry("NetPlugin", 1 << 7), Map.entry("GroupApi", 1 << 8),
      Map.entry("CollApi", 1 << 9), Map.entry("P2pApi", 1 << 10), Map.entry("KernelLaunch", 1 << 11),
      Map.entry("CeColl", 1 << 12), Map.entry("CeSync", 1 << 13), Map.entry("CeBatch", 1 << 14));

  private static final JsonFactory JSON = new JsonFactory();

  private final Map<String, Integer> interned = new HashMap<>();
  /** Contexts initialized and not finalized yet, with the line of their init (per read). */
  private final Map<Integer, Integer> live = new HashMap<>();
  /** The line being encoded, for what a problem says. */
  private int currentLine;

  /** The most ranks a communicator is taken to have: NCCL's rank numbers are ints, and no job has more. */
  static final int MAX_RANKS = 1 << 24;

  /** A reader; each keeps the driver's interned strings it used. */
  public TraceReader() {}

  /** The longest line read: recorded lines are a few hundred bytes; a longer one is not a trace. */
  static final int MAX_LINE_BYTES = 1 << 20;
  /** Problems listed one by one; past this many they are only counted. */
  public static final int MAX_PROBLEMS_LISTED = 100;
  /** Lines in a row that are not trace events, from the start, before the file is given up on. */
  static final int MAX_LEADING_BAD_LINES = 1000;

  /**
   * Reads a whole trace file. A gzip stream that ends early (a killed process's recording) or is
   * damaged is read up to the damage, and the events before it are kept ({@link TraceEvents#cutShort()});
   * every member of a gzip file is read and checked ({@link CheckedGzipInputStream}), so a damaged
   * member is damage ({@link TraceEvents#damaged()}), never a quiet end of the file.
   *
   * @throws IOException naming the file, if it cannot be opened or read at all: a directory, an
   *     empty file, a {@code .gz} that is not gzip
   */
  public TraceEvents read(Path trace) throws IOException {
    List<String> problems = new ArrayList<>();
    live.clear();
    ByteBuffer out = ByteBuffer.allocateDirect(DriverEventLayout.EVENT_BYTES * 4096)
        .order(ByteOrder.LITTLE_ENDIAN);
    int count = 0, maxHandle = 0, maxCtx = 0;
    boolean lastIsFini = false;
    String cutShort = null;
    boolean damaged = false;
    long skipped = 0;
    int unlisted = 0;
    try (LineSource in = open(trace)) {
      String line;
      int lineNo = 0;
      Map<String, Object> fields = new HashMap<>();
      while (true) {
        try {
          line = in.next();
        } catch (GzipDamageException e) {
          String why = e.getMessage().substring(e.getMessage().indexOf(": ") + 2);
          damaged = !e.truncated();
          cutShort = trace + ": the compressed stream " + (damaged ? "is damaged" : "ends early") + " after line "
              + lineNo + " (" + why + "); the events before it are kept";
          break;
        } catch (IOException e) {
          damaged = true;
          cutShort = trace + ": reading failed after line " + lineNo + " (" + e + "); the events before it are kept";
          break;
        } catch (LineTooLong e) {
          cutShort = trace + ":" + (lineNo + 1) + ": a line longer than " + (MAX_LINE_BYTES >> 20)
              + " MiB: not a recorded trace from here on; the events before it are kept";
          break;
        }
        if (line == null) {
          break;
        }
        lineNo++;
        if (line.isBlank()) {
          continue;
        }
        String problem = null;
        fields.clear();
        try {
          parseFlat(line, fields);
        } catch (IOException | RuntimeException e) {
          problem = trace + ":" + lineNo + ": not a JSON object (" + firstLine(e) + "), skipped";
        }
        if (problem == null) {
          if (out.remaining() < DriverEventLayout.EVENT_BYTES) {
            out = grow(out);
          }
          int base = out.position();
          try {
            currentLine = lineNo;
            encode(fields, out, base);
            out.position(base + DriverEventLayout.EVENT_BYTES);
            count++;
            maxHandle = Math.max(maxHandle, Math.max(out.getInt(base + HANDLE),
                Math.max(out.getInt(base + PARENT), out.getInt(base + PARENT_GROUP))));
            maxCtx = Math.max(maxCtx, out.getInt(base + CTX));
            lastIsFini = out.get(base + OP) == OP_FINI;
          } catch (RuntimeException e) {
            problem = trace + ":" + lineNo + ": " + e.getMessage() + ", skipped";
          }
        }
        if (problem != null) {
          skipped++;
          if (problems.size() < MAX_PROBLEMS_LISTED) {
            problems.add(problem);
          } else {
            unlisted++;
          }
          if (count == 0 && lineNo >= MAX_LEADING_BAD_LINES) {
            cutShort = trace + ": the first " + lineNo + " lines are not trace events: not a recorded trace";
            break;
          }
        }
      }
    }
    if (unlisted > 0) {
      problems.add(trace + ": " + unlisted + " more unusable line(s) skipped (" + skipped + " in all)");
    }
    if (cutShort != null) {
      problems.add(cutShort);
    }
    out.flip();
    return new TraceEvents(out, count, maxHandle, maxCtx, pidOf(trace), problems, lastIsFini,
        java.util.Optional.ofNullable(cutShort), skipped, damaged);
  }

  private static LineSource open(Path trace) throws IOException {
    if (Files.isDirectory(trace)) {
      throw new IOException(trace + ": is a directory, not a trace file");
    }
    InputStream raw;
    try {
      raw = Files.newInputStream(trace);
    } catch (IOException e) {
      throw new IOException(trace + ": cannot be read (" + e + ")", e);
    }
    if (!trace.getFileName().toString().endsWith(".gz")) {
      return new LineSource(raw);
    }
    CheckedGzipInputStream gzip = new CheckedGzipInputStream(raw, sizeOf(trace));
    try {
      gzip.checkHeader();
      return new LineSource(gzip);
    } catch (GzipDamageException e) {
      gzip.close();
      throw new IOException(trace + (e.truncated()
          ? ": empty or cut off before its first byte of data: not a gzip trace"
          : ": not a gzip file (" + e.getMessage() + ")"), e);
    }
  }

  /** The file's size, or -1 for a file that has none (a device, a pipe). */
  private static long sizeOf(Path trace) {
    try {
      return Files.isRegularFile(trace) ? Files.size(trace) : -1;
    } catch (IOException e) {
      return -1;
    }
  }

  /** A line longer than {@link #MAX_LINE_BYTES}. */
  private static final class LineTooLong extends Exception {
    LineTooLong() {
      super(null, null, false, false);
    }
  }

  /** Lines of UTF-8 text, each at most {@link #MAX_LINE_BYTES} long (so /dev/zero cannot exhaust memory). */
  private static final class LineSource implements AutoCloseable {
    private final InputStream in;
    private final byte[] chunk = new byte[1 << 16];
    private int pos;
    private int limit;
    private byte[] line = new byte[1024];
    private int length;

    LineSource(InputStream in) {
      this.in = in;
    }

    /** The next line without its end, or null at the end (a last line without an end included). */
    String next() throws IOException, LineTooLong {
      length = 0;
      while (true) {
        if (pos == limit) {
          int n = in.read(chunk);
          if (n < 0) {
            return length == 0 ? null : text();
          }
          pos = 0;
          limit = n;
        }
        int start = pos;
        while (pos < limit && chunk[pos] != '\n') {
          pos++;
        }
        append(start, pos - start);
        if (pos < limit) {
          pos++; /* the newline */
          return text();
        }
      }
    }

    private void append(int from, int n) throws LineTooLong {
      if (length + n > MAX_LINE_BYTES) {
        throw new LineTooLong();
      }
      if (length + n > line.length) {
        line = java.util.Arrays.copyOf(line, Math.max(line.length * 2, length + n));
      }
      System.arraycopy(chunk, from, line, length, n);
      length += n;
    }

    private String text() {
      int n = length > 0 && line[length - 1] == '\r' ? length - 1 : length;
      return new String(line, 0, n, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }

  private static OptionalLong pidOf(Path trace) {
    Matcher m = PID_IN_NAME.matcher(trace.getFileName().toString());
    return m.find() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
  }

  private static String firstLine(Exception e) {
    String m = e instanceof com.fasterxml.jackson.core.JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
    if (m == null) {
      m = e.getClass().getSimpleName();
    }
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  private static ByteBuffer grow(ByteBuffer old) {
    ByteBuffer bigger = ByteBuffer.allocateDirect(old.capacity() * 2).order(ByteOrder.LITTLE_ENDIAN);
    old.flip();
    bigger.put(old);
    return bigger;
  }

  /** A trace line is a flat object of strings and numbers. */
  private static void parseFlat(String line, Map<String, Object> fields) throws IOException {
    try (JsonParser p = JSON.createParser(line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("line does not start an object");
      }
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        switch (v) {
          case VALUE_STRING -> fields.put(name, p.getText());
          case VALUE_NUMBER_INT -> {
            /* Up to 64 bits (an unsigned 64-bit value keeps its bits); anything longer stays a
               BigInteger, which every numeric read rejects rather than wrap. */
            java.math.BigInteger n = p.getBigIntegerValue();
            fields.put(name, n.bitLength() <= 64 ? (Object) n.longValue() : n);
          }
          case VALUE_NUMBER_FLOAT -> fields.put(name, (long) p.getDoubleValue());
          case VALUE_TRUE -> fields.put(name, 1L);
          case VALUE_FALSE, VALUE_NULL -> fields.put(name, 0L);
          default -> p.skipChildren();
        }
      }
      if (t != JsonToken.END_OBJECT) {
        throw new IOException("object not closed");
      }
    }
  }

  private void encode(Map<String, Object> f, ByteBuffer b, int o) {
    for (int i = 0; i < DriverEventLayout.EVENT_BYTES; i++) {
      b.put(o + i, (byte) 0);
    }
    String ev = str(f, "ev");
    if (ev == null) {
      throw new IllegalArgumentException("no \"ev\" field");
    }
    b.putLong(o + T_MONO, num(f, "t", 0));
    b.putLong(o + T_WALL, num(f, "wall", 0));
    b.putInt(o + TID, (int) num(f, "tid", 0)); /* a Linux thread id: a positive int */
    switch (ev) {
      case "init" -> {
        /* NCCL gives a rank count of at least 1 (0 where it is unknown, interface v3), a rank below it and
           at most as many nodes as ranks; a trace that says otherwise would put its numbers in every record. */
        int ctx = id(f, "ctx", true);
        int nranks = bounded(f, "nranks", 0, MAX_RANKS);
        int limit = nranks == 0 ? MAX_RANKS : nranks;
        int nnodes = bounded(f, "nNodes", 0, limit);
        int rank = bounded(f, "rank", 0, limit - 1);
        Integer initialized = live.get(ctx);
        if (initialized != null) {
          throw new IllegalArgumentException("\"ctx\" " + ctx + " initialized again (first on line " + initialized
              + ", no fini since)");
        }
        long id = commId(str(f, "commId"));
        int name = intern(str(f, "commName"));
        live.put(ctx, currentLine);
        b.put(o + OP, (byte) OP_INIT);
        b.putInt(o + CTX, ctx);
        b.putLong(o + A, id);
        b.putShort(o + FUNC, (short) name);
        b.putInt(o + NNODES, nnodes);
        b.putInt(o + NRANKS, nranks);
        b.putInt(o + RANK, rank);
        b.putInt(o + I0, bounded(f, "ncclVersion", 0, 999_999)); /* the NCCL release recorded, 0 unknown */
        b.putInt(o + I1, bounded(f, "abi", 0, 99)); /* the profiler interface recorded, 0 unknown */
      }
      case "start" -> encodeStart(f, b, o);
      case "stop" -> {
        b.put(o + OP, (byte) OP_STOP);
        b.putInt(o + HANDLE, id(f, "h", true));
      }
      case "state" -> {
        b.put(o + OP, (byte) OP_STATE);
        b.putInt(o + HANDLE, id(f, "h", true));
        long state = required(f, "state");
        if (state < 0 || state > Integer.MAX_VALUE) {
          throw new IllegalArgumentException("\"state\" " + state + " out of range 0.." + Integer.MAX_VALUE);
        }
        b.putInt(o + STATE, (int) state);
        long arg = num(f, "pTimer", num(f, "transSize", num(f, "appendedProxyOps", 0)));
        b.putLong(o + A, arg);
      }
      case "fini" -> {
        int ctx = id(f, "ctx", true);
        b.put(o + OP, (byte) OP_FINI);
        b.putInt(o + CTX, ctx);
        live.remove(ctx);
      }
      default -> throw new IllegalArgumentException("unknown event \"" + ev + "\"");
    }
  }

  private void encodeStart(Map<String, Object> f, ByteBuffer b, int o) {
    String type = str(f, "type");
    Integer bit = type == null ? null : TYPE_BITS.get(type);
    if (bit == null) {
      throw new IllegalArgumentException("unknown event type \"" + type + "\"");
    }
    b.put(o + OP, (byte) OP_START);
    b.putInt(o + TYPE, bit);
    b.putInt(o + CTX, id(f, "ctx", false));
    b.putInt(o + HANDLE, id(f, "h", true));
    b.putInt(o + PARENT, id(f, "parent", false));
    b.putInt(o + PARENT_GROUP, id(f, "parentGroup", false));
    /* Every number is checked against the width it is packed into: none wraps into another value. */
    b.putInt(o + RANK, bounded(f, "rank", -1, MAX_RANKS - 1));
    b.putShort(o + FUNC, (short) intern(str(f, "func")));
    b.putShort(o + DATATYPE, (short) intern(str(f, "datatype")));
    b.putShort(o + ALGO, (short) intern(str(f, "algo")));
    b.putShort(o + PROTO, (short) intern(str(f, "proto")));
    long count = num(f, "count", 0);
    if (count < 0) {
      throw new IllegalArgumentException("\"count\" " + count + " is negative");
    }
    b.putLong(o + COUNT, count);
    b.put(o + N_CHANNELS, (byte) bounded(f, "nChannels", 0, 255));
    b.put(o + N_WARPS, (byte) bounded(f, "nWarps", 0, 255));
    b.put(o + CHANNEL_ID, (byte) bounded(f, "channelId", 0, 255));
    b.put(o + GRAPH_CAPTURED, (byte) bounded(f, "graphCaptured", 0, 1));
    switch (type) {
      case "Coll" -> {
        b.putLong(o + A, num(f, "seq", 0));
        b.putInt(o + PEER_OR_ROOT, bounded(f, "root", -1, MAX_RANKS - 1));
      }
      case "CollApi" -> b.putInt(o + PEER_OR_ROOT, bounded(f, "root", -1, MAX_RANKS - 1));
      case "CeColl" -> {
        b.putLong(o + A, num(f, "seq", 0));
        b.putInt(o + PEER_OR_ROOT, bounded(f, "root", -1, MAX_RANKS - 1));
      }
      case "P2p", "ProxyOp" -> b.putInt(o + PEER_OR_ROOT, bounded(f, "peer", -1, MAX_RANKS - 1));
      case "KernelCh" -> b.putLong(o + A, num(f, "pTimer", 0));
      default -> { }
    }
    String i0 = f.containsKey("pid") ? "pid" : f.containsKey("groupDepth") ? "groupDepth" : "step";
    b.putInt(o + I0, bounded(f, i0, Integer.MIN_VALUE, Integer.MAX_VALUE));
    b.putInt(o + I1, bounded(f, "nSteps", 0, Integer.MAX_VALUE));
    b.putInt(o + I2, bounded(f, "chunkSize", 0, Integer.MAX_VALUE));
    b.putInt(o + I3, bounded(f, "isSend", 0, 1));
  }

  /**
   * An optional number (0 when absent) that must be in {@code min..max}, the range the driver's field holds and
   * NCCL gives: checked before any narrowing, so that -2 or 2^32 + 1 never becomes another value.
   */
  private static int bounded(Map<String, Object> f, String key, long min, long max) {
    long v = num(f, key, 0);
    if (v < min || v > max) {
      throw new IllegalArgumentException("\"" + key + "\" " + v + " out of range " + min + ".." + max);
    }
    return (int) v;
  }

  /**
   * The strings this reader interned in the driver, with the driver's ids (those the events it
   * encoded carry): what a replay in another process (the native replay benchmark) interns again,
   * in id order, to give the same events the same strings.
   */
  public Map<String, Integer> internedStrings() {
    return Map.copyOf(interned);
  }

  private int intern(String s) {
    if (s == null) {
      return 0;
    }
    Integer id = interned.get(s);
    if (id == null) {
      id = ProfilerTableDriver.intern(s);
      if (id <= 0 || id > 0xffff) {
        throw new IllegalStateException("too many distinct strings in the trace");
      }
      interned.put(s, id);
    }
    return id;
  }

  private static long commId(String hex) {
    if (hex == null) {
      throw new IllegalArgumentException("init without commId");
    }
    String digits = hex.startsWith("0x") || hex.startsWith("0X") ? hex.substring(2) : hex;
    return Long.parseUnsignedLong(digits, 16);
  }

  private static String str(Map<String, Object> f, String key) {
    Object v = f.get(key);
    return v instanceof String s ? s : null;
  }

  private static long num(Map<String, Object> f, String key, long otherwise) {
    Object v = f.get(key);
    if (v instanceof java.math.BigInteger big) {
      throw new IllegalArgumentException("\"" + key + "\" " + big + " does not fit in 64 bits");
    }
    return v instanceof Long l ? l : otherwise;
  }

  /**
   * A handle or context id: 0 (none) to {@link ProfilerTableDriver#MAX_ID}. Checked on the value
   * read, before any narrowing, so that -1 or a number past 32 bits never becomes an index.
   */
  private static int id(Map<String, Object> f, String key, boolean isRequired) {
    long v = isRequired ? required(f, key) : num(f, key, 0);
    if (v < 0 || v > DriverEventLayout.MAX_ID) {
      throw new IllegalArgumentException("\"" + key + "\" " + v + " out of range 0.." + DriverEventLayout.MAX_ID);
    }
    return (int) v;
  }

  private static long required(Map<String, Object> f, String key) {
    Object v = f.get(key);
    if (v instanceof java.math.BigInteger) {
      return num(f, key, 0);
    }
    if (!(v instanceof Long l)) {
      throw new IllegalArgumentException("missing numeric field \"" + key + "\"");
    }
    return l;
  }
}
