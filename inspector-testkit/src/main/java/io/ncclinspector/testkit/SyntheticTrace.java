package io.ncclinspector.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Builds small traces in the recorded format (testdata/traces/FORMAT.md) for tests. */
public final class SyntheticTrace {
  private final List<String> lines = new ArrayList<>();
  private long t = 1_000_000_000L;
  /** Wall-clock nanoseconds at monotonic time 0: a line stamped {@code t} has wall {@code WALL + t}. */
  public static final long WALL = 1_795_942_870_000_000_000L;
  private int nextHandle = 1;

  /** An empty trace whose clock starts at 1 s (monotonic), {@link #WALL} + 1 s (wall clock). */
  public SyntheticTrace() {}

  private String stamp() {
    t += 1000;
    return "{\"t\":" + t + ",\"wall\":" + (WALL + t) + ",\"tid\":1,";
  }

  /**
   * Moves the clock to monotonic {@code t} (never back): the next line is stamped 1 µs after it,
   * each further one 1 µs later.
   */
  public SyntheticTrace clock(long t) {
    this.t = Math.max(this.t, t);
    return this;
  }

  /** Wall-clock nanoseconds of the last line written. */
  public long lastWall() {
    return WALL + t;
  }

  public SyntheticTrace init(int ctx, long commId, int rank, int nranks) {
    lines.add(stamp() + "\"ev\":\"init\",\"ctx\":" + ctx + ",\"commId\":\"0x" + Long.toHexString(commId)
        + "\",\"commName\":\"synthetic\",\"nNodes\":" + nranks + ",\"nranks\":" + nranks + ",\"rank\":" + rank
        + ",\"mask\":0,\"innerMask\":0}");
    return this;
  }

  /**
   * An init as NCCL of a given release and profiler interface makes it (the replay's stand-in for
   * NCCL then answers ncclGetVersion with {@code ncclVersionCode}; interface 6 drives the plugin's
   * v6 table, which carries copy-engine events).
   */
  public SyntheticTrace init(int ctx, long commId, int rank, int nranks, int ncclVersionCode, int abi) {
    lines.add(stamp() + "\"ev\":\"init\",\"ctx\":" + ctx + ",\"commId\":\"0x" + Long.toHexString(commId)
        + "\",\"commName\":\"synthetic\",\"nNodes\":" + nranks + ",\"nranks\":" + nranks + ",\"rank\":" + rank
        + ",\"mask\":0,\"innerMask\":0,\"abi\":" + abi + ",\"ncclVersion\":" + ncclVersionCode + "}");
    return this;
  }

  /**
   * An application's collective call (interface v5+: CollApi, started and stopped on the calling
   * thread); its operation event names the returned handle as parent ({@link #coll(int, int, String,
   * long, long, String, int)}).
   */
  public int collApi(int ctx, String func, long count, String datatype, int root) {
    int h = nextHandle++;
    lines.add(stamp() + "\"ev\":\"start\",\"ctx\":" + ctx + ",\"h\":" + h + ",\"type\":\"CollApi\",\"parent\":0,"
        + "\"rank\":0,\"func\":\"" + func + "\",\"count\":" + count + ",\"datatype\":\"" + datatype + "\",\"root\":"
        + root + ",\"stream\":\"0x1\",\"graphCaptured\":0}");
    stop(h);
    return h;
  }

  /** A collective operation event whose call was {@code api} (a {@link #collApi} handle). */
  public int coll(int ctx, int api, String func, long seq, long count, String datatype, int channels) {
    int h = nextHandle++;
    lines.add(stamp() + "\"ev\":\"start\",\"ctx\":" + ctx + ",\"h\":" + h + ",\"type\":\"Coll\",\"parent\":" + api
        + ",\"rank\":0,\"seq\":" + seq + ",\"func\":\"" + func + "\",\"count\":" + count + ",\"root\":0,"
        + "\"datatype\":\"" + datatype + "\",\"nChannels\":" + channels + ",\"nWarps\":8,\"algo\":\"RING\","
        + "\"proto\":\"SIMPLE\",\"parentGroup\":0}");
    return h;
  }

  /** A copy-engine collective (interface v6 only) of the call {@code api}. */
  public int ceColl(int ctx, int api, String func, long seq, long count, String datatype) {
    int h = nextHandle++;
    lines.add(stamp() + "\"ev\":\"start\",\"ctx\":" + ctx + ",\"h\":" + h + ",\"type\":\"CeColl\",\"parent\":" + api
        + ",\"rank\":0,\"seq\":" + seq + ",\"func\":\"" + func + "\",\"count\":" + count + ",\"root\":0,"
        + "\"datatype\":\"" + datatype + "\",\"stream\":\"0x1\"}");
    return h;
  }

  public int coll(int ctx, String func, long seq, long count, String datatype, int channels) {
    int h = nextHandle++;
    lines.add(stamp() + "\"ev\":\"start\",\"ctx\":" + ctx + ",\"h\":" + h + ",\"type\":\"Coll\",\"parent\":0,"
        + "\"rank\":0,\"seq\":" + seq + ",\"func\":\"" + func + "\",\"count\":" + count + ",\"root\":0,"
        + "\"datatype\":\"" + datatype + "\",\"nChannels\":" + channels + ",\"nWarps\":8,\"algo\":\"RING\","
        + "\"proto\":\"SIMPLE\",\"parentGroup\":0}");
    return h;
  }

  /**
   * NCCL's report of a kernel launch on this thread (interface v5): the time no kernel channel of
   * the operations started after it can precede.
   */
  public SyntheticTrace kernelLaunch(int ctx) {
    int h = nextHandle++;
    lines.add(stamp() + "\"ev\":\"start\",\"ctx\":" + ctx + ",\"h\":" + h + ",\"type\":\"KernelLaunch\","
        + "\"parent\":0,\"rank\":0,\"stream\":\"0x1\"}");
    return stop(h);
  }

  public int p2p(int ctx, String func, int peer, long count, int channels) {
    int h = nextHandle++;
    lines.add(stamp() + "\"ev\":\"start\",\"ctx\":" + ctx + ",\"h\":" + h + ",\"type\":\"P2p\",\"parent\":0,"
        + "\"rank\":0,\"func\":\"" + func + "\",\"buff\":\"0x1\",\"datatype\":\"ncclInt8\",\"count\":" + count
        + ",\"peer\":" + peer + ",\"nChannels\":" + channels + ",\"parentGroup\":0}");
    return h;
  }

  public int kernelChannel(int ctx, int parent, int channelId, long gpuStart) {
    int h = nextHandle++;
    lines.add(stamp() + "\"ev\":\"start\",\"ctx\":" + ctx + ",\"h\":" + h + ",\"type\":\"KernelCh\",\"parent\":"
        + parent + ",\"rank\":0,\"channelId\":" + channelId + ",\"pTimer\":" + gpuStart + "}");
    return h;
  }

  public SyntheticTrace kernelChannelDone(int h, long gpuStop) {
    lines.add(stamp() + "\"ev\":\"state\",\"h\":" + h + ",\"state\":22,\"pTimer\":" + gpuStop + "}");
    return stop(h);
  }

  public SyntheticTrace stop(int h) {
    lines.add(stamp() + "\"ev\":\"stop\",\"h\":" + h + "}");
    return this;
  }

  public SyntheticTrace fini(int ctx) {
    lines.add(stamp() + "\"ev\":\"fini\",\"ctx\":" + ctx + "}");
    return this;
  }

  public SyntheticTrace raw(String line) {
    lines.add(line);
    return this;
  }

  /** Writes the trace as {@code trace-pid<pid>.jsonl} in {@code dir}. */
  public Path write(Path dir, long pid) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve("trace-pid" + pid + ".jsonl");
    Files.write(file, lines, StandardCharsets.UTF_8);
    return file;
  }
}
