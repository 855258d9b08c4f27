package io.ncclinspector.internal;

import io.ncclinspector.Algorithm;
import io.ncclinspector.Channels;
import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.CommunicatorEvent;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.EventTrace;
import io.ncclinspector.InspectorEvent;
import io.ncclinspector.KernelChannelTrace;
import io.ncclinspector.NetworkBreakdown;
import io.ncclinspector.P2pRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.RecordFlag;
import io.ncclinspector.Tags;
import io.ncclinspector.TimeRecovery;
import io.ncclinspector.Timing;
import io.ncclinspector.TimingSource;
import io.ncclinspector.Transfer;
import io.ncclinspector.UntimedReason;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Decodes ring records (record_format.h) from a drained direct buffer into immutable Java
 * records. Runs on the drain thread.
 */
public final class RecordDecoder {

  /** Quarantine reasons by their native code (QUARANTINE_* in record_format.h). */
  private static final Quarantine[] QUARANTINES = Quarantine.values();
  /** Untimed reasons by their native code (UNTIMED_* in record_format.h). */
  private static final UntimedReason[] UNTIMED = UntimedReason.values();

  private final NativeCore core;
  private final RecordLayout l;
  private final CommunicatorRegistry communicators;
  private final TimingSource[] timingSources;
  /** Flag of bit i, by the native core's own names (null for a bit this version does not know). */
  private final RecordFlag[] flagBits;
  /** The bit of {@link RecordFlag#SELF_P2P}: tested on the bits, not on the decoded set. */
  private final int selfP2pBit;

  public RecordDecoder(NativeCore core, CommunicatorRegistry communicators) {
    this.core = core;
    this.l = core.layout();
    this.communicators = communicators;
    timingSources = new TimingSource[core.nameCount(NativeCore.TABLE_TIMING_SOURCE)];
    for (int i = 0; i < timingSources.length; i++) {
      timingSources[i] = timingSourceNamed(core.name(NativeCore.TABLE_TIMING_SOURCE, i));
    }
    flagBits = new RecordFlag[core.nameCount(NativeCore.TABLE_RECORD_FLAG)];
    flagSets = newFlagSetCache(flagBits.length);
    for (int i = 0; i < flagBits.length; i++) {
      String name = core.name(NativeCore.TABLE_RECORD_FLAG, i);
      for (RecordFlag f : RecordFlag.values()) {
        if (f.jsonName().equals(name)) {
          flagBits[i] = f;
        }
      }
    }
    int selfP2p = 0;
    for (int i = 0; i < flagBits.length; i++) {
      if (flagBits[i] == RecordFlag.SELF_P2P) {
        selfP2p |= 1 << i;
      }
    }
    selfP2pBit = selfP2p;
  }

  @SuppressWarnings("unchecked")
  private static Set<RecordFlag>[] newFlagSetCache(int bits) {
    if (bits > 20) {
      throw new IllegalStateException("native record flags: " + bits + " bits, at most 20 expected");
    }
    return (Set<RecordFlag>[]) new Set<?>[1 << bits];
  }

  private static TimingSource timingSourceNamed(String name) {
    for (TimingSource t : TimingSource.values()) {
      if (t.jsonName().equals(name)) {
        return t;
      }
    }
    throw new IllegalStateException("native timing source '" + name + "' unknown to this jar:"
        + " the jar and the native library come from different builds");
  }

  /** Bytes taken by the record at {@code offset}. */
  public int recordBytes(ByteBuffer buf, int offset) {
    int cells = Short.toUnsignedInt(buf.getShort(offset + l.cells));
    return Math.max(cells, 1) * l.cellBytes;
  }

  /** Operation records decoded so far (read from any thread). */
  public long operationsDecoded() {
    return operations;
  }

  /**
   * Decodes the record at {@code offset}: an {@link io.ncclinspector.OperationRecord}, a
   * {@link CommunicatorEvent}, or null for a kind this version does not know.
   */
  public InspectorEvent decode(ByteBuffer buf, int offset) {
    buf.order(ByteOrder.LITTLE_ENDIAN);
    int kind = Short.toUnsignedInt(buf.getShort(offset + l.kind));
    if (kind == l.kindColl || kind == l.kindP2p) {
      InspectorEvent op = decodeOperation(buf, offset, kind, null, false);
      operations++; /* one writer, the dump thread; volatile for readers elsewhere */
      return op;
    }
    if (kind == l.kindCommCreated || kind == l.kindCommDestroyed) {
      return decodeCommunicator(buf, offset, kind);
    }
    return null;
  }

  private volatile long operations;

  /** The communicator of the previous operation record: consecutive records mostly share it. */
  private CommunicatorInfo lastCommunicator;

  private CommunicatorInfo communicator(ByteBuffer b, int o) {
    long serial = b.getLong(o + l.commSerial);
    long id = b.getLong(o + l.commId);
    int rank = b.getInt(o + l.rank);
    CommunicatorInfo last = lastCommunicator;
    if (last != null && last.serial() == serial && last.id() == id && last.rank() == rank) {
      return last;
    }
    last = communicators.resolve(serial, id, rank, b.getInt(o + l.nranks), b.getInt(o + l.nnodes),
        u8(b, o + l.abiVersion));
    lastCommunicator = last;
    return last;
  }

  private CommunicatorEvent decodeCommunicator(ByteBuffer b, int o, int kind) {
    int nameLength = Math.min(b.getInt(o + l.commNameLength), l.commNameMax - 1);
    byte[] name = new byte[Math.max(nameLength, 0)];
    b.get(o + l.commName, name);
    String text = new String(name, StandardCharsets.UTF_8);
    CommunicatorInfo info = new CommunicatorInfo(
        b.getLong(o + l.commSerial),
        b.getLong(o + l.commId),
        text.isEmpty() ? CommunicatorInfo.UNKNOWN_NAME : text,
        b.getInt(o + l.rank),
        b.getInt(o + l.nranks),
        b.getInt(o + l.nnodes),
        b.getInt(o + l.commAbiVersion),
        b.getInt(o + l.commCudaDevice),
        gpuUuid(b, o + l.commGpuUuid, l.gpuUuidMax),
        b.getInt(o + l.commNcclVersion));
    boolean created = kind == l.kindCommCreated;
    lastCommunicator = null; /* its name may have changed what resolve returns */
    if (created) {
      communicators.created(info);
    } else {
      communicators.destroyed(info.serial());
    }
    return new CommunicatorEvent(created ? CommunicatorEvent.Change.CREATED : CommunicatorEvent.Change.DESTROYED, info);
  }

  private static String gpuUuid(ByteBuffer b, int at, int max) {
    int n = 0;
    while (n < max && b.get(at + n) != 0) {
      n++;
    }
    if (n == 0) {
      return CommunicatorInfo.UNKNOWN_GPU;
    }
    byte[] text = new byte[n];
    b.get(at, text);
    return new String(text, StandardCharsets.US_ASCII);
  }

  /** A CUPTI kernel record of an NCCL launch (record_format.h {@code kernel_record}). */
  public record KernelSpan(long launchId, int operations, long startNanos, long endNanos) {
    /** The kernel's run time, 0 if CUPTI gave an end before its start. */
    public long durationNanos() {
      return Math.max(endNanos - startNanos, 0);
    }
  }

  /** Whether the record at {@code offset} is a CUPTI kernel record. */
  public boolean isKernel(ByteBuffer buf, int offset) {
    buf.order(ByteOrder.LITTLE_ENDIAN);
    return Short.toUnsignedInt(buf.getShort(offset + l.kind)) == l.kindKernel;
  }

  public KernelSpan decodeKernel(ByteBuffer b, int o) {
    b.order(ByteOrder.LITTLE_ENDIAN);
    return new KernelSpan(b.getLong(o + l.krLaunchId), b.getInt(o + l.krOps), b.getLong(o + l.krStartNs),
        b.getLong(o + l.krEndNs));
  }

  /** The launch id of the operation record at {@code offset} (0: none). */
  public long launchId(ByteBuffer b, int o) {
    b.order(ByteOrder.LITTLE_ENDIAN);
    return b.getLong(o + l.launchId);
  }

  /**
   * Decodes the operation record at {@code offset} again, timed by its kernel's CUPTI record
   * instead of its channels: {@link TimingSource#KERNEL_CUPTI}, the quarantine and the lower-bound
   * flags gone, bandwidths from the kernel's time, {@link TimeRecovery.Method#KERNEL_RECORD}; with
   * {@code group}, the kernel ran the operation with others of its group and its time is theirs
   * together ({@link TimingSource#KERNEL_CUPTI_GROUP}, {@link TimeRecovery.Method#KERNEL_RECORD_GROUP}).
   * A null {@code span} decodes the record as it was. Not counted again in {@link #operationsDecoded}.
   */
  public InspectorEvent decodeTimedByKernel(ByteBuffer buf, int offset, KernelSpan span, boolean group) {
    buf.order(ByteOrder.LITTLE_ENDIAN);
    return decodeOperation(buf, offset, Short.toUnsignedInt(buf.getShort(offset + l.kind)), span, group);
  }

  /** {@link #decodeTimedByKernel(ByteBuffer, int, KernelSpan, boolean)} by a kernel that ran it alone. */
  public InspectorEvent decodeTimedByKernel(ByteBuffer buf, int offset, KernelSpan span) {
    return decodeTimedByKernel(buf, offset, span, false);
  }

  private static final Set<RecordFlag> NOT_WITH_KERNEL_TIME =
      Set.of(RecordFlag.QUARANTINED, RecordFlag.DESYNC_CHANNELS_EXCLUDED, RecordFlag.SEND_SIDE_STOP);

  private InspectorEvent decodeOperation(ByteBuffer b, int o, int kind, KernelSpan span, boolean group) {
    CommunicatorInfo comm = communicator(b, o);
    int q = u8(b, o + l.quarantineReason);
    Quarantine quarantine = q < QUARANTINES.length ? QUARANTINES[q] : Quarantine.GPU_TIMESTAMP_ZERO;
    int desynced = u8(b, o + l.channelsDesynced);
    long launchWall = b.getLong(o + l.launchWallNs);
    long skew = b.getLong(o + l.gpuSkewNs);
    int func = u8(b, o + l.func);
    String op = core.name(NativeCore.TABLE_FUNC, func);
    String datatype = core.name(NativeCore.TABLE_DATATYPE, u8(b, o + l.datatype));
    int sourceCode = u8(b, o + l.timingSource);
    TimingSource source = sourceCode < timingSources.length ? timingSources[sourceCode] : TimingSource.COLLECTIVE_CPU;
    int flagBitsSet = b.getInt(o + l.flags);
    Set<RecordFlag> flags = flags(flagBitsSet);
    long bytes = b.getLong(o + l.bytes);
    long execNanos = b.getLong(o + l.execNs);
    long gpuStart = b.getLong(o + l.gpuStartNs);
    long gpuSpan = b.getLong(o + l.gpuSpanNs);
    int untimed = u8(b, o + l.untimedReason);
    int recoveryMethod = u8(b, o + l.timeRecovery);
    if (span != null) {
      execNanos = span.durationNanos();
      source = group ? TimingSource.KERNEL_CUPTI_GROUP : TimingSource.KERNEL_CUPTI;
      quarantine = Quarantine.NONE;
      gpuStart = span.startNanos();
      gpuSpan = execNanos;
      skew = 0;
      untimed = 0;
      recoveryMethod = (group ? TimeRecovery.Method.KERNEL_RECORD_GROUP : TimeRecovery.Method.KERNEL_RECORD).ordinal();
      EnumSet<RecordFlag> kept = flags.isEmpty() ? EnumSet.noneOf(RecordFlag.class) : EnumSet.copyOf(flags);
      kept.removeAll(NOT_WITH_KERNEL_TIME);
      flags = kept;
    }
    int peerOrRoot = b.getInt(o + l.peerOrRoot);
    boolean crossesNoLink = (flagBitsSet & selfP2pBit) != 0;
    Bandwidth.Rule rule = bandwidthRule(func, op);
    double algbw = rule.algorithmGbs(bytes, execNanos, comm.ranks());
    double busbw = rule.busGbs(algbw, bytes, execNanos, comm.ranks(), crossesNoLink);
    EventTrace trace = trace(Short.toUnsignedInt(b.getShort(o + l.startSn)),
        Short.toUnsignedInt(b.getShort(o + l.stopSn)), channels(b, o));
    Tags tags = tags(b.getLong(o + l.step), Short.toUnsignedInt(b.getShort(o + l.phase)));
    Transfer transfer = new Transfer(b.getLong(o + l.count), datatype, bytes, algbw, busbw);
    Timing timing = new Timing(execNanos, source, quarantine, gpuStart, gpuSpan, skew, b.getLong(o + l.startWallNs),
        b.getLong(o + l.stopWallNs), launchWall,
        untimed < UNTIMED.length ? UNTIMED[untimed] : UntimedReason.NCCL_NO_OPERATION_EVENT);
    Channels channels = channels(u8(b, o + l.nChannels), u8(b, o + l.channelsSeen), desynced,
        recovery(recoveryMethod, u8(b, o + l.channelsRecovered), u8(b, o + l.maxChannelLag),
            u8(b, o + l.withheldReason), u8(b, o + l.recoveryOffReason)));
    if (kind == l.kindColl) {
      Algorithm algorithm = algorithm(u8(b, o + l.algo), u8(b, o + l.proto), u8(b, o + l.nWarps));
      int callNumber = b.getInt(o + l.apiSn);
      return new CollectiveRecord(comm, op, b.getLong(o + l.seq), peerOrRoot, algorithm, transfer, timing, channels,
          tags, flags, trace, callNumber == -1 ? CollectiveRecord.CALL_NUMBER_UNKNOWN : Integer.toUnsignedLong(callNumber),
          network(b, o));
    }
    return new P2pRecord(comm, op, b.getLong(o + l.seq), peerOrRoot, transfer, timing, channels, tags, flags, trace,
        network(b, o));
  }

  /** The network cells at the record's end (record_format.h), or NONE. */
  private NetworkBreakdown network(ByteBuffer b, int o) {
    int netCells = u8(b, o + l.netCells);
    if (netCells == 0) {
      return NetworkBreakdown.NONE;
    }
    int cells = Short.toUnsignedInt(b.getShort(o + l.cells));
    int n = o + (cells - netCells) * l.cellBytes;
    int w = n + l.cellBytes; /* the summary's second cell */
    int details = Math.min(u8(b, n + l.netDetailCells), netCells - 2);
    int stepCells = Math.min(Short.toUnsignedInt(b.getShort(w + l.nwStepCells)), netCells - 2 - Math.max(details, 0));
    List<List<NetworkBreakdown.ProxyStep>> steps = new ArrayList<>(Math.max(details, 0));
    for (int i = 0; i < details; i++) {
      steps.add(new ArrayList<>());
    }
    int firstStep = n + (2 + Math.max(details, 0)) * l.cellBytes;
    for (int i = 0; i < 2 * stepCells; i++) {
      int s = firstStep + i * l.stepRecordBytes;
      int detail = u8(b, s + l.stDetail);
      if (detail < details) {
        int state = u8(b, s + l.stState);
        steps.get(detail).add(new NetworkBreakdown.ProxyStep(Integer.toUnsignedLong(b.getInt(s + l.stStep)),
            STEP_STATES[Math.max(0, Math.min(state, STEP_STATES.length) - 1)], b.getLong(s + l.stStartWallNs),
            Integer.toUnsignedLong(b.getInt(s + l.stPostNs)), Integer.toUnsignedLong(b.getInt(s + l.stWaitNs)),
            Integer.toUnsignedLong(b.getInt(s + l.stMoveNs)), Integer.toUnsignedLong(b.getInt(s + l.stDoneNs))));
      }
    }
    List<NetworkBreakdown.ProxyTransfer> transfers = new ArrayList<>(Math.max(details, 0));
    for (int i = 0; i < details; i++) {
      int c = n + (2 + i) * l.cellBytes;
      transfers.add(new NetworkBreakdown.ProxyTransfer(b.getInt(c + l.pxPeer), u8(b, c + l.pxChannelId),
          u8(b, c + l.pxIsSend) != 0, Integer.toUnsignedLong(b.getInt(c + l.pxSteps)),
          Short.toUnsignedInt(b.getShort(c + l.pxStepsDone)), Short.toUnsignedInt(b.getShort(c + l.pxNSteps)),
          b.getLong(c + l.pxBytes), b.getLong(c + l.pxFirstPostWallNs), b.getLong(c + l.pxFirstReadyWallNs),
          b.getLong(c + l.pxLastReadyWallNs), b.getLong(c + l.pxDoneWallNs), steps.get(i)));
    }
    int known = u8(b, w + l.nwKnown);
    int peerWaitPeer = b.getInt(w + l.nwPeerWaitPeer);
    NetworkBreakdown.StepWaits waits = new NetworkBreakdown.StepWaits(b.getLong(w + l.nwSendPeerWaitNs),
        Integer.toUnsignedLong(b.getInt(w + l.nwSendPeerWaitMaxNs)), peerWaitPeer,
        peerWaitPeer < 0 ? -1 : u8(b, w + l.nwPeerWaitChannel), (known & KNOWN_PEER_WAIT) != 0,
        b.getLong(w + l.nwRecvFlushNs), Integer.toUnsignedLong(b.getInt(w + l.nwRecvFlushMaxNs)),
        (known & KNOWN_FLUSH) != 0, b.getLong(w + l.nwProxyLagNs),
        Integer.toUnsignedLong(b.getInt(w + l.nwProxyLagMaxNs)), (known & KNOWN_LAG) != 0,
        Integer.toUnsignedLong(b.getInt(w + l.nwSteps)));
    return new NetworkBreakdown(b.getLong(n + l.netBytesSent), b.getLong(n + l.netBytesReceived),
        b.getLong(n + l.netFirstPostWallNs), b.getLong(n + l.netLastDoneWallNs), b.getLong(n + l.netSendGpuWaitNs),
        b.getLong(n + l.netRecvWaitNs), b.getInt(n + l.netSlowestPeer),
        b.getInt(n + l.netSlowestPeer) < 0 ? -1 : u8(b, n + l.netSlowestChannel), b.getLong(n + l.netLastArrivalWallNs),
        u8(b, n + l.netProxyOps), u8(b, n + l.netProxyOpsTracked), transfers, waits);
  }

  /* record_format.h NET_KNOWN_* and proxy_breakdown.h PROXY_STEP_* (1 = started). */
  private static final int KNOWN_PEER_WAIT = 1, KNOWN_FLUSH = 2, KNOWN_LAG = 4;
  private static final NetworkBreakdown.StepState[] STEP_STATES = NetworkBreakdown.StepState.values();

  /** Bandwidth rules by the native operation code (decided once per code from its name). */
  private final Bandwidth.Rule[] bandwidthRules = new Bandwidth.Rule[256];

  private Bandwidth.Rule bandwidthRule(int func, String op) {
    Bandwidth.Rule r = bandwidthRules[func];
    if (r == null) {
      r = Bandwidth.Rule.of(op);
      bandwidthRules[func] = r;
    }
    return r;
  }

  /**
   * Algorithm values by (algorithm, protocol, warps): a job uses a handful, kept in a small
   * direct-mapped cache (a value that collides with another is built again, never wrong).
   */
  private static final int ALGORITHM_SLOTS = 64;
  private final int[] algorithmKeys = new int[ALGORITHM_SLOTS];
  private final Algorithm[] algorithms = new Algorithm[ALGORITHM_SLOTS];

  private Algorithm algorithm(int algo, int proto, int warps) {
    int key = (algo << 16) | (proto << 8) | warps;
    int slot = (key * 0x9E3779B1 >>> 26) & (ALGORITHM_SLOTS - 1);
    Algorithm a = algorithms[slot];
    if (a == null || algorithmKeys[slot] != key) {
      a = new Algorithm(core.name(NativeCore.TABLE_ALGO, algo), core.name(NativeCore.TABLE_PROTO, proto), warps);
      algorithms[slot] = a;
      algorithmKeys[slot] = key;
    }
    return a;
  }

  /** The channels of the previous record: consecutive records mostly have the same. */
  private Channels lastChannels = new Channels(0, 0, 0);

  /* Names of channel_recovery.h's TIME_*, WITHHELD_* and RECOV_OFF_* codes. */
  private static final TimeRecovery.Method[] RECOVERY_METHODS = TimeRecovery.Method.values();
  private static final String[] WITHHELD = {"none", "lag_predicted", "slot_reused", "never_delivered",
      "causal_check", "lag_detected", "p2p_lag"};
  private static final String[] RECOVERY_OFF = {"none", "setting", "no_memory", "interface", "multi_node",
      "graph", "several_collectives", "hidden_work", "shape_unlearnable", "queue_full", "unexpected"};
  private TimeRecovery lastRecovery = TimeRecovery.NONE;

  private TimeRecovery recovery(int method, int recovered, int lag, int withheld, int off) {
    TimeRecovery last = lastRecovery;
    TimeRecovery.Method m = method < RECOVERY_METHODS.length ? RECOVERY_METHODS[method] : TimeRecovery.Method.NOT_KERNEL;
    String w = withheld < WITHHELD.length ? WITHHELD[withheld] : "unknown";
    String f = off < RECOVERY_OFF.length ? RECOVERY_OFF[off] : "unknown";
    if (last.method() == m && last.channelsRecovered() == recovered && last.maxChannelLag() == lag
        && last.withheldReason().equals(w) && last.recoveryOffReason().equals(f)) {
      return last;
    }
    last = new TimeRecovery(m, recovered, lag, w, f);
    lastRecovery = last;
    return last;
  }

  private Channels channels(int announced, int seen, int desynced, TimeRecovery recovery) {
    Channels last = lastChannels;
    if (last.announced() == announced && last.seen() == seen && last.desynced() == desynced
        && last.recovery() == recovery) {
      return last;
    }
    last = new Channels(announced, seen, desynced, recovery);
    lastChannels = last;
    return last;
  }

  /** The tags of a record: most records of a job share none, or the step of the moment. */
  private Tags lastTags = Tags.NONE;

  private Tags tags(long step, int phaseId) {
    String phase = PhaseNames.nameOf(phaseId);
    Tags last = lastTags;
    if (last.step() == step && last.phase() == phase) {
      return last;
    }
    last = new Tags(step, phase);
    lastTags = last;
    return last;
  }

  /** The trace of the previous record without channels (outside verbose mode, all of them). */
  private EventTrace lastTrace = EventTrace.NONE;

  private EventTrace trace(int startSequence, int stopSequence, List<KernelChannelTrace> channels) {
    if (!channels.isEmpty()) {
      return new EventTrace(startSequence, stopSequence, channels);
    }
    EventTrace last = lastTrace;
    if (last.startSequence() != startSequence || last.stopSequence() != stopSequence) {
      last = new EventTrace(startSequence, stopSequence, channels);
      lastTrace = last;
    }
    return last;
  }

  private List<KernelChannelTrace> channels(ByteBuffer b, int o) {
    int cells = Short.toUnsignedInt(b.getShort(o + l.cells)) - u8(b, o + l.netCells);
    if (cells <= l.opHeaderCells) {
      return List.of();
    }
    List<KernelChannelTrace> out = new ArrayList<>(cells - l.opHeaderCells);
    for (int i = l.opHeaderCells; i < cells; i++) {
      int c = o + i * l.cellBytes;
      out.add(new KernelChannelTrace(
          u8(b, c + l.chChannelId),
          Short.toUnsignedInt(b.getShort(c + l.chStartSn)),
          Short.toUnsignedInt(b.getShort(c + l.chRecordSn)),
          Short.toUnsignedInt(b.getShort(c + l.chStopSn)),
          b.getLong(c + l.chStartWallNs),
          b.getLong(c + l.chRecordWallNs),
          b.getLong(c + l.chStopWallNs),
          b.getLong(c + l.chGpuStartNs),
          b.getLong(c + l.chGpuStopNs),
          desync(u8(b, c + l.chDesync))));
    }
    return out;
  }

  private static final KernelChannelTrace.Desync[] DESYNC = KernelChannelTrace.Desync.values();

  private static KernelChannelTrace.Desync desync(int code) {
    return code < DESYNC.length ? DESYNC[code] : KernelChannelTrace.Desync.DETECTED;
  }

  /**
   * Immutable flag sets by bit pattern, built once: records keep immutable sets as they are and
   * would copy any other.
   */
  private final Set<RecordFlag>[] flagSets;

  private Set<RecordFlag> flags(int bits) {
    if (bits == 0) {
      return Set.of();
    }
    int key = bits & (flagSets.length - 1);
    Set<RecordFlag> cached = flagSets[key];
    if (cached == null) {
      EnumSet<RecordFlag> set = EnumSet.noneOf(RecordFlag.class);
      for (int i = 0; i < flagBits.length; i++) {
        if ((key & (1 << i)) != 0 && flagBits[i] != null) {
          set.add(flagBits[i]);
        }
      }
      cached = Set.copyOf(set);
      flagSets[key] = cached;
    }
    return cached;
  }

  private static int u8(ByteBuffer b, int offset) {
    return Byte.toUnsignedInt(b.get(offset));
  }
}
