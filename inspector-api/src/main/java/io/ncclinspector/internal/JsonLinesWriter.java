package io.ncclinspector.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.io.SerializedString;
import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.KernelChannelTrace;
import io.ncclinspector.NetworkBreakdown;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.P2pRecord;
import io.ncclinspector.ProcessIdentity;
import io.ncclinspector.Quarantine;
import io.ncclinspector.RecordFlag;
import io.ncclinspector.Tags;
import io.ncclinspector.TimeRecovery;
import io.ncclinspector.Timing;
import io.ncclinspector.Transfer;
import io.ncclinspector.UntimedReason;
import io.ncclinspector.format.HeaderField;
import io.ncclinspector.format.KernelEventField;
import io.ncclinspector.format.MetadataField;
import io.ncclinspector.format.PerfField;
import io.ncclinspector.format.ProxyOpField;
import io.ncclinspector.format.ProxyStepField;
import io.ncclinspector.format.RecordKind;
import io.ncclinspector.format.TraceField;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Writes records in the reference Inspector's JSON Lines format v4.0: one object per line with
 * {@code header}, {@code metadata} and {@code coll_perf} or {@code p2p_perf}, plus (verbose)
 * {@code event_trace_sn} / {@code event_trace_ts}. Every field of the reference keeps its name
 * and meaning; fields of ours are added after them, with the same prefix.
 *
 * <p>Differences from the reference, on purpose: {@code header.id} carries all 64 bits of the
 * communicator id; verbose channel lists hold the channels that really ran, by their NCCL channel
 * id; bandwidths are rounded to 6 decimals as the reference prints them.
 *
 * <p>The names are those of the shared record format ({@code io.ncclinspector.format}), which the
 * offline report reads by.
 *
 * <p>Written for the throughput of the JSON writer thread: field names and repeated values are
 * pre-encoded once (Jackson's {@link SerializedString}), the header and the metadata rendered once
 * (Jackson's generator), and each line is put together by {@link JsonLineEncoder} from those
 * bytes and Jackson's number formatting, without a generator's per-token checks.
 */
public final class JsonLinesWriter implements Closeable {
  public static final String FORMAT_VERSION = MetadataField.FORMAT_VERSION_VALUE;
  public static final String REC_MECHANISM = MetadataField.REC_MECHANISM_VALUE;

  private static final JsonFactory FACTORY = JsonFactory.builder()
      .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
      .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
      .build();

  private final JsonLineEncoder json;
  private final OutputStream out;
  private final boolean verbose;
  private final SerializableString hostname;
  private final SerializableString gitRev;
  private final long pid;
  private final Map<String, SerializableString> values = new HashMap<>();
  private final Map<Long, Header> headers = new HashMap<>();
  private final Map<Long, SerializableString[]> metadata = new HashMap<>();
  private static final SerializableString NEWLINE = new SerializedString("\n");
  private static final RecordFlag[] FLAGS = RecordFlag.values();
  private final Prefixed coll = new Prefixed(RecordKind.COLL);
  private final Prefixed p2p = new Prefixed(RecordKind.P2P);

  public JsonLinesWriter(OutputStream out, ProcessIdentity identity, String gitRev, boolean verbose)
      throws IOException {
    this.out = out;
    this.json = new JsonLineEncoder(out); /* lines are separated by our newline only */
    this.hostname = new SerializedString(identity.hostname());
    this.gitRev = new SerializedString(gitRev);
    this.pid = identity.pid();
    this.verbose = verbose;
  }

  /** Writes one record as one line; {@code dumpMicros} is the wall-clock time of writing. */
  public void write(OperationRecord r, long dumpMicros) throws IOException {
    json.writeStartObject();
    writeHeader(r.communicator());
    writeMetadata(dumpMicros, r.communicator().profilerInterfaceVersion(), r.communicator().ncclVersionCode());
    if (r instanceof CollectiveRecord c) {
      writeCollective(c);
    } else if (r instanceof P2pRecord p) {
      writeP2p(p);
    }
    json.writeEndObject();
    json.writeRaw(NEWLINE);
  }

  public void flush() throws IOException {
    json.flush();
  }

  /**
   * Forgets a destroyed communicator's rendered header, so that a job that creates communicators
   * over and over does not accumulate them (a record of it arriving later renders it again).
   */
  public void forget(long communicatorSerial) {
    headers.remove(communicatorSerial);
    if (lastHeader != null && lastHeader.comm().serial() == communicatorSerial) {
      lastHeader = null;
    }
  }

  @Override
  public void close() throws IOException {
    json.close();
    out.close();
  }

  /**
   * The encoded form of a repeated value. Values mostly are the same few string instances (the
   * native name tables, the enums' names), so they are first looked up by identity in a small
   * direct-mapped cache, then by equality.
   */
  private static final int VALUE_SLOTS = 64;
  private final String[] recentValues = new String[VALUE_SLOTS];
  private final SerializableString[] recentEncoded = new SerializableString[VALUE_SLOTS];

  private SerializableString value(String s) {
    int slot = System.identityHashCode(s) & (VALUE_SLOTS - 1);
    if (recentValues[slot] == s) {
      return recentEncoded[slot];
    }
    SerializableString encoded = values.computeIfAbsent(s, SerializedString::new);
    recentValues[slot] = s;
    recentEncoded[slot] = encoded;
    return encoded;
  }

  /** The dump timestamp, encoded once per distinct value. */
  private long lastMicros = -1;
  private SerializableString lastMicrosText;

  /** A communicator's header object, rendered once (it is the same for all its records). */
  private record Header(CommunicatorInfo comm, SerializableString json) {}

  /** The header of the previous record: consecutive records mostly share their communicator. */
  private Header lastHeader;

  private void writeHeader(CommunicatorInfo c) throws IOException {
    Header h = lastHeader;
    if (h == null || h.comm() != c) {
      h = header(c);
      lastHeader = h;
    }
    json.writeFieldName(F.HEADER);
    json.writeRawValue(h.json());
  }

  private Header header(CommunicatorInfo c) {
    Header h = headers.get(c.serial());
    if (h == null || !h.comm().equals(c)) {
      h = new Header(c, new SerializedString(render(g -> {
        g.writeStartObject();
        g.writeStringField(HeaderField.ID.jsonName(), c.idHex());
        g.writeStringField(HeaderField.COMM_NAME.jsonName(), c.name());
        g.writeNumberField(HeaderField.RANK.jsonName(), c.rank());
        g.writeNumberField(HeaderField.N_RANKS.jsonName(), c.ranks());
        g.writeNumberField(HeaderField.NNODES.jsonName(), c.nodes());
        g.writeEndObject();
      })));
      headers.put(c.serial(), h);
    }
    return h;
  }

  /* The metadata of the previous record: consecutive records mostly share it. */
  private long lastMetadataKey = -1;
  private SerializableString[] lastMetadata;

  /**
   * The metadata object: rendered once per interface version and NCCL release up to its timestamp
   * and once after it; only the timestamp is written per record.
   */
  private void writeMetadata(long dumpMicros, int interfaceVersion, int ncclVersionCode) throws IOException {
    long key = ((long) interfaceVersion << 32) | (ncclVersionCode & 0xffffffffL);
    SerializableString[] parts = lastMetadata;
    if (key != lastMetadataKey || parts == null) {
      parts = metadata(key, interfaceVersion, ncclVersionCode);
      lastMetadata = parts;
      lastMetadataKey = key;
    }
    json.writeFieldName(F.METADATA);
    json.writeRawValue(parts[0]);
    if (dumpMicros != lastMicros) {
      lastMicros = dumpMicros;
      lastMicrosText = new SerializedString(Long.toString(dumpMicros));
    }
    json.writeRaw(lastMicrosText);
    json.writeRaw(parts[1]);
  }

  /** The metadata object of an interface version and NCCL release, cut at its timestamp. */
  private SerializableString[] metadata(long key, int interfaceVersion, int ncclVersionCode) {
    return metadata.computeIfAbsent(key, k -> {
      int v = interfaceVersion;
      String whole = render(g -> {
        g.writeStartObject();
        g.writeStringField(MetadataField.FORMAT_VERSION.jsonName(), FORMAT_VERSION);
        g.writeStringField(MetadataField.GIT_REV.jsonName(), gitRev.getValue());
        g.writeStringField(MetadataField.REC_MECHANISM.jsonName(), REC_MECHANISM);
        g.writeNumberField(MetadataField.DUMP_TIMESTAMP_US.jsonName(), 0L);
        g.writeStringField(MetadataField.HOSTNAME.jsonName(), hostname.getValue());
        g.writeNumberField(MetadataField.PID.jsonName(), pid);
        g.writeNumberField(MetadataField.PROFILER_INTERFACE_VERSION.jsonName(), v);
        java.util.Optional<String> release = CommunicatorInfo.ncclVersionText(ncclVersionCode);
        if (release.isPresent()) {
          g.writeStringField(MetadataField.NCCL_VERSION.jsonName(), release.get());
        }
        g.writeEndObject();
      });
      String stamp = "\"" + MetadataField.DUMP_TIMESTAMP_US.jsonName() + "\":";
      int at = whole.indexOf(stamp + "0") + stamp.length();
      return new SerializableString[] {
          new SerializedString(whole.substring(0, at)), new SerializedString(whole.substring(at + 1))};
    });
  }

  /** Writes a fragment with its own generator (not the line's) and returns its text. */
  private static String render(Fragment f) {
    try {
      java.io.StringWriter text = new java.io.StringWriter();
      try (JsonGenerator g = FACTORY.createGenerator(text)) {
        f.write(g);
      }
      return text.toString();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @FunctionalInterface
  private interface Fragment {
    void write(JsonGenerator g) throws IOException;
  }

  private void writeCollective(CollectiveRecord c) throws IOException {
    Prefixed f = coll;
    json.writeFieldName(f.perf);
    json.writeStartObject();
    json.writeStringField(f.op, value(c.operation()));
    json.writeNumberField(f.sn, c.sequence());
    writeCommon(f, c);
    json.writeStringField(f.algo, value(c.algorithm().name()));
    json.writeStringField(f.proto, value(c.algorithm().protocol()));
    json.writeStringField(f.datatype, value(c.transfer().datatype()));
    json.writeNumberField(f.count, c.transfer().count());
    json.writeNumberField(f.root, c.root());
    json.writeNumberField(f.nchannels, c.channels().announced());
    json.writeNumberField(f.channelsSeen, c.channels().seen());
    json.writeNumberField(f.nwarps, c.algorithm().warps());
    writeGpuAndFlags(f, c);
    if (verbose) {
      writeTrace(f, c);
    }
    json.writeEndObject();
  }

  private void writeP2p(P2pRecord p) throws IOException {
    Prefixed f = p2p;
    json.writeFieldName(f.perf);
    json.writeStartObject();
    json.writeStringField(f.op, value(p.operation()));
    json.writeNumberField(f.sn, p.sequence());
    json.writeNumberField(f.peer, p.peer());
    writeCommon(f, p);
    json.writeStringField(f.datatype, value(p.transfer().datatype()));
    json.writeNumberField(f.count, p.transfer().count());
    json.writeNumberField(f.nchannels, p.channels().announced());
    json.writeNumberField(f.channelsSeen, p.channels().seen());
    writeGpuAndFlags(f, p);
    if (verbose) {
      writeTrace(f, p);
    }
    json.writeEndObject();
  }

  /** The reference's fields, in its order, then our nanosecond time. */
  private void writeCommon(Prefixed f, OperationRecord r) throws IOException {
    Transfer t = r.transfer();
    Timing time = r.timing();
    json.writeNumberField(f.msgSize, t.messageBytes());
    json.writeNumberField(f.execTimeUs, time.executionMicros());
    json.writeStringField(f.timingSource, value(time.source().jsonName()));
    json.writeFieldName(f.algobw);
    writeFixed6(t.algorithmBandwidthGbs());
    json.writeFieldName(f.busbw);
    writeFixed6(t.busBandwidthGbs());
    json.writeNumberField(f.execTimeNs, time.executionNanos());
  }

  private void writeGpuAndFlags(Prefixed f, OperationRecord r) throws IOException {
    Timing time = r.timing();
    if (time.gpuStartNanos() != 0) {
      json.writeNumberField(f.gpuStart, time.gpuStartNanos());
      json.writeNumberField(f.gpuSpan, time.gpuSpanNanos());
      json.writeNumberField(f.gpuSkew, time.gpuSkewNanos());
    }
    Tags tags = r.tags();
    if (tags.hasStep()) {
      json.writeNumberField(f.step, tags.step());
    }
    if (tags.phase() != null) {
      json.writeStringField(f.phase, value(tags.phase()));
    }
    if (time.quarantine() != Quarantine.NONE) {
      json.writeStringField(f.quarantine, value(time.quarantine().jsonName()));
    }
    if (time.untimedReason() != UntimedReason.NONE) {
      json.writeStringField(f.untimedReason, value(time.untimedReason().jsonName()));
    }
    if (r.channels().desynced() > 0) {
      json.writeNumberField(f.channelsDesynced, r.channels().desynced());
    }
    writeRecovery(f, r.timeRecovery());
    if (f.apiSn != null && r instanceof CollectiveRecord c && c.callNumber() >= 0) {
      json.writeNumberField(f.apiSn, c.callNumber());
    }
    if (r.network().present()) {
      writeNetwork(f, r.network());
    }
    Set<RecordFlag> set = r.flags();
    if (set.isEmpty()) {
      return;
    }
    Flags flags = flags(set);
    if (flags.timeIsLowerBound() && time.timed()) {
      json.writeFieldName(f.bwUpperBound);
      json.writeBoolean(true);
    }
    json.writeFieldName(f.flags);
    json.writeStartArray();
    for (SerializableString name : flags.names()) {
      json.writeString(name);
    }
    json.writeEndArray();
  }

  /**
   * A set of flags as written: their names in declaration order, and whether they make the time a
   * lower bound ({@link RecordFlag#timeIsLowerBound}).
   */
  private record Flags(Set<RecordFlag> set, SerializableString[] names, boolean timeIsLowerBound) {}

  /**
   * Recent flag sets by identity: records share a handful of sets (the decoder makes one per bit
   * pattern), so the names are looked up once per set, not once per record and flag.
   */
  private final Flags[] recentFlags = new Flags[8];
  private int nextFlags;

  private Flags flags(Set<RecordFlag> set) {
    for (Flags known : recentFlags) {
      if (known != null && known.set() == set) {
        return known;
      }
    }
    java.util.List<SerializableString> names = new java.util.ArrayList<>();
    for (RecordFlag flag : FLAGS) {
      if (set.contains(flag)) {
        names.add(value(flag.jsonName()));
      }
    }
    Flags made = new Flags(set, names.toArray(SerializableString[]::new), RecordFlag.timeIsLowerBound(set));
    recentFlags[nextFlags] = made;
    nextFlags = (nextFlags + 1) % recentFlags.length;
    return made;
  }

  /** The network breakdown's summary (proxy events). */
  /** How the GPU time was obtained (channel recovery): written for kernel-channel times only. */
  private void writeRecovery(Prefixed f, TimeRecovery rec) throws IOException {
    if (rec.method() != TimeRecovery.Method.NOT_KERNEL) {
      json.writeStringField(f.timeRecovery, value(rec.method().jsonName()));
    }
    if (rec.channelsRecovered() > 0) {
      json.writeNumberField(f.channelsRecovered, rec.channelsRecovered());
      json.writeNumberField(f.maxChannelLag, rec.maxChannelLag());
    }
    if (!rec.withheldReason().equals("none")) {
      json.writeStringField(f.withheldReason, value(rec.withheldReason()));
    }
    /* Off by the setting: the user knows; said only where recovery went off by itself. */
    if (!rec.recoveryOffReason().equals("none") && !rec.recoveryOffReason().equals("setting")) {
      json.writeStringField(f.recoveryOffReason, value(rec.recoveryOffReason()));
    }
  }

  private void writeNetwork(Prefixed f, NetworkBreakdown n) throws IOException {
    json.writeNumberField(f.netBytesSent, n.bytesSent());
    json.writeNumberField(f.netBytesRecv, n.bytesReceived());
    if (n.networkNanos() > 0) {
      json.writeNumberField(f.netTime, n.networkNanos());
    }
    json.writeNumberField(f.netSendGpuWait, n.sendGpuWaitNanos());
    json.writeNumberField(f.netRecvWait, n.receiveWaitNanos());
    if (n.slowestPeer() >= 0) {
      json.writeNumberField(f.netSlowestPeer, n.slowestPeer());
      json.writeNumberField(f.netSlowestChannel, n.slowestChannel());
    }
    if (n.lastArrivalWallNanos() != 0) {
      json.writeNumberField(f.netLastArrival, n.lastArrivalWallNanos() / 1000);
    }
    json.writeNumberField(f.netProxyOps, n.proxyOperations());
    /* The waits inside the steps, each only where NCCL's states let the core measure it. */
    NetworkBreakdown.StepWaits w = n.waits();
    if (w.peerWaitKnown()) {
      json.writeNumberField(f.netSendPeerWait, w.sendPeerWaitNanos());
      json.writeNumberField(f.netSendPeerWaitMax, w.sendPeerWaitMaxNanos());
      json.writeNumberField(f.netSendPeerWaitPeer, w.peerWaitPeer());
    }
    if (w.flushKnown()) {
      json.writeNumberField(f.netRecvFlush, w.receiveFlushNanos());
      json.writeNumberField(f.netRecvFlushMax, w.receiveFlushMaxNanos());
    }
    if (w.lagKnown()) {
      json.writeNumberField(f.netProxyLag, w.proxyLagNanos());
      json.writeNumberField(f.netProxyLagMax, w.proxyLagMaxNanos());
    }
  }

  private void writeProxyOps(Prefixed f, NetworkBreakdown n) throws IOException {
    json.writeFieldName(f.proxyOps);
    json.writeStartArray();
    for (NetworkBreakdown.ProxyTransfer t : n.transfers()) {
      json.writeStartObject();
      json.writeNumberField(F.PX_CHANNEL_ID, t.channel());
      json.writeNumberField(F.PX_PEER, t.peer());
      json.writeFieldName(F.PX_SEND);
      json.writeBoolean(t.send());
      json.writeNumberField(F.PX_STEPS, t.steps());
      json.writeNumberField(F.PX_STEPS_DONE, t.stepsDone());
      json.writeNumberField(F.PX_ANNOUNCED_STEPS, t.announcedSteps());
      json.writeNumberField(F.PX_BYTES, t.bytes());
      writeMicrosIfSet(F.PX_POST_TS, t.firstPostWallNanos());
      writeMicrosIfSet(F.PX_READY_TS, t.firstReadyWallNanos());
      writeMicrosIfSet(F.PX_LAST_ARRIVAL_TS, t.lastReadyWallNanos());
      writeMicrosIfSet(F.PX_DONE_TS, t.doneWallNanos());
      if (!t.stepDetail().isEmpty()) {
        json.writeFieldName(F.PX_STEP_DETAIL);
        json.writeStartArray();
        for (NetworkBreakdown.ProxyStep s : t.stepDetail()) {
          json.writeStartObject();
          json.writeNumberField(F.ST_STEP, s.step());
          json.writeStringField(F.ST_STATE, STEP_STATE_NAMES[s.state().ordinal()]);
          writeMicrosIfSet(F.ST_START_TS, s.startWallNanos());
          json.writeNumberField(F.ST_POST, s.postNanos());
          json.writeNumberField(F.ST_WAIT, s.waitNanos());
          json.writeNumberField(F.ST_MOVE, s.moveNanos());
          json.writeNumberField(F.ST_DONE, s.doneNanos());
          json.writeEndObject();
        }
        json.writeEndArray();
      }
      if (t.stepsTruncated()) {
        json.writeFieldName(F.PX_STEPS_TRUNCATED);
        json.writeBoolean(true);
      }
      json.writeEndObject();
    }
    json.writeEndArray();
  }

  private static final SerializableString[] STEP_STATE_NAMES = java.util.Arrays.stream(
      NetworkBreakdown.StepState.values()).map(v -> new SerializedString(v.jsonName()))
      .toArray(SerializableString[]::new);

  private void writeMicrosIfSet(SerializableString name, long wallNanos) throws IOException {
    if (wallNanos != 0) {
      json.writeNumberField(name, wallNanos / 1000);
    }
  }

  private void writeTrace(Prefixed f, OperationRecord r) throws IOException {
    json.writeFieldName(f.eventTraceSn);
    json.writeStartObject();
    json.writeNumberField(f.startSn, r.trace().startSequence());
    json.writeNumberField(f.stopSn, r.trace().stopSequence());
    json.writeFieldName(f.kernelEvents);
    json.writeStartArray();
    for (KernelChannelTrace ch : r.trace().channels()) {
      json.writeStartObject();
      json.writeNumberField(F.CHANNEL_ID, ch.channelId());
      json.writeNumberField(F.KERNEL_START_SN, ch.startSequence());
      json.writeNumberField(F.KERNEL_STOP_SN, ch.stopSequence());
      json.writeNumberField(F.KERNEL_RECORD_SN, ch.recordSequence());
      json.writeEndObject();
    }
    json.writeEndArray();
    json.writeEndObject();

    json.writeFieldName(f.eventTraceTs);
    json.writeStartObject();
    json.writeNumberField(f.startTs, r.timing().startWallNanos() / 1000);
    json.writeNumberField(f.stopTs, r.timing().stopWallNanos() / 1000);
    if (r.timing().launchWallNanos() != 0) {
      json.writeNumberField(f.launchTs, r.timing().launchWallNanos() / 1000);
    }
    json.writeFieldName(f.kernelEvents);
    json.writeStartArray();
    for (KernelChannelTrace ch : r.trace().channels()) {
      json.writeStartObject();
      json.writeNumberField(F.CHANNEL_ID, ch.channelId());
      json.writeNumberField(F.KERNEL_START_TS, ch.startWallNanos() / 1000);
      json.writeNumberField(F.KERNEL_STOP_TS, ch.stopWallNanos() / 1000);
      json.writeNumberField(F.KERNEL_RECORD_TS, ch.recordWallNanos() / 1000);
      json.writeNumberField(F.KERNEL_GPU_START, ch.gpuStartNanos());
      json.writeNumberField(F.KERNEL_GPU_STOP, ch.gpuStopNanos());
      if (ch.desync() != KernelChannelTrace.Desync.IN_STEP) {
        json.writeStringField(F.KERNEL_DESYNC, value(ch.desync().jsonName()));
      }
      json.writeEndObject();
    }
    json.writeEndArray();
    if (!r.network().transfers().isEmpty()) {
      writeProxyOps(f, r.network());
    }
    json.writeEndObject();
  }

  /**
   * A bandwidth with six decimals, as the reference prints them ({@code %lf}), formatted without
   * allocating. Values beyond what a long of millionths holds, or not finite, fall back to
   * Jackson's own formatting.
   */
  private void writeFixed6(double v) throws IOException {
    if (!(Math.abs(v) < 9.0e12)) {
      json.writeNumber(v);
      return;
    }
    json.writeNumberMillionths(Math.round(v * 1e6));
  }

  /** Pre-encoded names without a prefix. */
  private static final class F {
    static final SerializedString HEADER = new SerializedString(HeaderField.OBJECT);
    static final SerializedString METADATA = new SerializedString(MetadataField.OBJECT);
    static final SerializedString CHANNEL_ID = name(KernelEventField.CHANNEL_ID);
    static final SerializedString KERNEL_START_SN = name(KernelEventField.KERNEL_START_SN);
    static final SerializedString KERNEL_STOP_SN = name(KernelEventField.KERNEL_STOP_SN);
    static final SerializedString KERNEL_RECORD_SN = name(KernelEventField.KERNEL_RECORD_SN);
    static final SerializedString KERNEL_START_TS = name(KernelEventField.KERNEL_START_TS);
    static final SerializedString KERNEL_STOP_TS = name(KernelEventField.KERNEL_STOP_TS);
    static final SerializedString KERNEL_RECORD_TS = name(KernelEventField.KERNEL_RECORD_TS);
    static final SerializedString KERNEL_GPU_START = name(KernelEventField.KERNEL_GPU_START_NS);
    static final SerializedString KERNEL_GPU_STOP = name(KernelEventField.KERNEL_GPU_STOP_NS);
    static final SerializedString KERNEL_DESYNC = name(KernelEventField.KERNEL_DESYNC);
    static final SerializedString PX_CHANNEL_ID = name(ProxyOpField.CHANNEL_ID);
    static final SerializedString PX_PEER = name(ProxyOpField.PEER);
    static final SerializedString PX_SEND = name(ProxyOpField.SEND);
    static final SerializedString PX_STEPS = name(ProxyOpField.STEPS);
    static final SerializedString PX_STEPS_DONE = name(ProxyOpField.STEPS_DONE);
    static final SerializedString PX_ANNOUNCED_STEPS = name(ProxyOpField.ANNOUNCED_STEPS);
    static final SerializedString PX_BYTES = name(ProxyOpField.BYTES);
    static final SerializedString PX_POST_TS = name(ProxyOpField.POST_TS);
    static final SerializedString PX_READY_TS = name(ProxyOpField.READY_TS);
    static final SerializedString PX_LAST_ARRIVAL_TS = name(ProxyOpField.LAST_ARRIVAL_TS);
    static final SerializedString PX_DONE_TS = name(ProxyOpField.DONE_TS);
    static final SerializedString PX_STEP_DETAIL = name(ProxyOpField.STEP_DETAIL);
    static final SerializedString PX_STEPS_TRUNCATED = name(ProxyOpField.STEPS_TRUNCATED);
    static final SerializedString ST_STEP = new SerializedString(ProxyStepField.STEP.jsonName());
    static final SerializedString ST_STATE = new SerializedString(ProxyStepField.STATE.jsonName());
    static final SerializedString ST_START_TS = new SerializedString(ProxyStepField.START_TS.jsonName());
    static final SerializedString ST_POST = new SerializedString(ProxyStepField.POST_NS.jsonName());
    static final SerializedString ST_WAIT = new SerializedString(ProxyStepField.WAIT_NS.jsonName());
    static final SerializedString ST_MOVE = new SerializedString(ProxyStepField.MOVE_NS.jsonName());
    static final SerializedString ST_DONE = new SerializedString(ProxyStepField.DONE_NS.jsonName());

    private static SerializedString name(KernelEventField f) {
      return new SerializedString(f.jsonName());
    }

    private static SerializedString name(ProxyOpField f) {
      return new SerializedString(f.jsonName());
    }
  }

  /** Pre-encoded names of one kind's perf object ({@code coll_}, {@code p2p_} prefixes). */
  private static final class Prefixed {
    final SerializedString perf, op, sn, peer, msgSize, execTimeUs, timingSource, algobw, busbw,
        execTimeNs, algo, proto, datatype, count, root, nchannels, channelsSeen, nwarps, gpuStart,
        gpuSpan, gpuSkew, quarantine, untimedReason, flags, step, phase, channelsDesynced, apiSn, bwUpperBound,
        timeRecovery, channelsRecovered, maxChannelLag, withheldReason, recoveryOffReason,
        netBytesSent, netBytesRecv, netTime, netSendGpuWait, netRecvWait, netSlowestPeer, netSlowestChannel,
        netLastArrival, netProxyOps, netSendPeerWait, netSendPeerWaitMax, netSendPeerWaitPeer, netRecvFlush,
        netRecvFlushMax, netProxyLag, netProxyLagMax, eventTraceSn,
        eventTraceTs, startSn, stopSn, startTs, stopTs, launchTs, kernelEvents, proxyOps;
    private final RecordKind kind;

    Prefixed(RecordKind k) {
      kind = k;
      perf = new SerializedString(k.perfObject());
      op = name(PerfField.OPERATION);
      sn = name(PerfField.SEQUENCE);
      peer = k == RecordKind.P2P ? name(PerfField.PEER) : null;
      msgSize = name(PerfField.MESSAGE_BYTES);
      execTimeUs = name(PerfField.EXEC_TIME_US);
      timingSource = name(PerfField.TIMING_SOURCE);
      algobw = name(PerfField.ALGORITHM_BANDWIDTH);
      busbw = name(PerfField.BUS_BANDWIDTH);
      execTimeNs = name(PerfField.EXEC_TIME_NS);
      boolean coll = k == RecordKind.COLL;
      algo = coll ? name(PerfField.ALGORITHM) : null;
      proto = coll ? name(PerfField.PROTOCOL) : null;
      datatype = name(PerfField.DATATYPE);
      count = name(PerfField.COUNT);
      root = coll ? name(PerfField.ROOT) : null;
      nchannels = name(PerfField.NCHANNELS);
      channelsSeen = name(PerfField.CHANNELS_SEEN);
      nwarps = coll ? name(PerfField.NWARPS) : null;
      gpuStart = name(PerfField.GPU_START_NS);
      gpuSpan = name(PerfField.GPU_SPAN_NS);
      gpuSkew = name(PerfField.GPU_SKEW_NS);
      quarantine = name(PerfField.QUARANTINE_REASON);
      untimedReason = name(PerfField.UNTIMED_REASON);
      apiSn = coll ? name(PerfField.API_SN) : null;
      flags = name(PerfField.FLAGS);
      step = name(PerfField.STEP);
      phase = name(PerfField.PHASE);
      channelsDesynced = name(PerfField.CHANNELS_DESYNCED);
      timeRecovery = name(PerfField.TIME_RECOVERY);
      channelsRecovered = name(PerfField.CHANNELS_RECOVERED);
      maxChannelLag = name(PerfField.MAX_CHANNEL_LAG);
      withheldReason = name(PerfField.WITHHELD_REASON);
      recoveryOffReason = name(PerfField.RECOVERY_OFF_REASON);
      bwUpperBound = name(PerfField.BW_IS_UPPER_BOUND);
      netBytesSent = name(PerfField.NET_BYTES_SENT);
      netBytesRecv = name(PerfField.NET_BYTES_RECV);
      netTime = name(PerfField.NET_TIME_NS);
      netSendGpuWait = name(PerfField.NET_SEND_GPU_WAIT_NS);
      netRecvWait = name(PerfField.NET_RECV_WAIT_NS);
      netSlowestPeer = name(PerfField.NET_SLOWEST_PEER);
      netSlowestChannel = name(PerfField.NET_SLOWEST_CHANNEL);
      netLastArrival = name(PerfField.NET_LAST_ARRIVAL_TS);
      netProxyOps = name(PerfField.NET_PROXY_OPS);
      netSendPeerWait = name(PerfField.NET_SEND_PEER_WAIT_NS);
      netSendPeerWaitMax = name(PerfField.NET_SEND_PEER_WAIT_MAX_NS);
      netSendPeerWaitPeer = name(PerfField.NET_SEND_PEER_WAIT_PEER);
      netRecvFlush = name(PerfField.NET_RECV_FLUSH_NS);
      netRecvFlushMax = name(PerfField.NET_RECV_FLUSH_MAX_NS);
      netProxyLag = name(PerfField.NET_PROXY_LAG_NS);
      netProxyLagMax = name(PerfField.NET_PROXY_LAG_MAX_NS);
      eventTraceSn = name(PerfField.EVENT_TRACE_SN);
      eventTraceTs = name(PerfField.EVENT_TRACE_TS);
      startSn = name(TraceField.START_SN);
      stopSn = name(TraceField.STOP_SN);
      startTs = name(TraceField.START_TS);
      stopTs = name(TraceField.STOP_TS);
      launchTs = name(TraceField.LAUNCH_TS);
      kernelEvents = name(TraceField.KERNEL_EVENTS);
      proxyOps = name(TraceField.PROXY_OPS);
    }

    private SerializedString name(PerfField f) {
      return new SerializedString(f.jsonName(kind));
    }

    private SerializedString name(TraceField f) {
      return new SerializedString(f.jsonName(kind));
    }
  }
}
