package io.ncclinspector.internal;

import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.KernelChannelTrace;
import io.ncclinspector.P2pRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.RecordFlag;
import io.ncclinspector.TimingSource;
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

  private final NativeCore core;
  private final RecordLayout l;
  private final CommunicatorRegistry communicators;
  private final TimingSource[] timingSources;
  /** Flag of bit i, by the native core's own names (null for a bit this version does not know). */
  private final RecordFlag[] flagBits;

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

  /**
   * Decodes the record at {@code offset}: an {@link io.ncclinspector.OperationRecord}, a
   * {@link CommunicatorEvent}, or null for a kind this version does not know.
   */
  public Object decode(ByteBuffer buf, int offset) {
    buf.order(ByteOrder.LITTLE_ENDIAN);
    int kind = Short.toUnsignedInt(buf.getShort(offset + l.kind));
    if (kind == l.kindColl || kind == l.kindP2p) {
      return decodeOperation(buf, offset, kind);
    }
    if (kind == l.kindCommCreated || kind == l.kindCommDestroyed) {
      return decodeCommunicator(buf, offset, kind);
    }
    return null;
  }

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
        gpuUuid(b, o + l.commGpuUuid, l.gpuUuidMax));
    boolean created = kind == l.kindCommCreated;
    lastCommunicator = null; /* its name may have changed what resolve returns */
    if (created) {
      communicators.created(info);
    } else {
      communicators.destroyed(info.serial());
    }
    return new CommunicatorEvent(created, info, b.getLong(o + l.commEventWallNs));
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

  private Object decodeOperation(ByteBuffer b, int o, int kind) {
    CommunicatorInfo comm = communicator(b, o);
    int q = u8(b, o + l.quarantineReason);
    Quarantine quarantine = q < QUARANTINES.length ? QUARANTINES[q] : Quarantine.GPU_TIMESTAMP_ZERO;
    int desynced = u8(b, o + l.channelsDesynced);
    long launchWall = b.getLong(o + l.launchWallNs);
    long skew = b.getLong(o + l.gpuSkewNs);
    String op = core.name(NativeCore.TABLE_FUNC, u8(b, o + l.func));
    String datatype = core.name(NativeCore.TABLE_DATATYPE, u8(b, o + l.datatype));
    int source = u8(b, o + l.timingSource);
    TimingSource timing = source < timingSources.length ? timingSources[source] : TimingSource.COLLECTIVE_CPU;
    Set<RecordFlag> flags = flags(b.getInt(o + l.flags));
    long bytes = b.getLong(o + l.bytes);
    long execNanos = b.getLong(o + l.execNs);
    int peerOrRoot = b.getInt(o + l.peerOrRoot);
    boolean crossesNoLink = flags.contains(RecordFlag.SELF_P2P);
    Bandwidth.Figures bw = Bandwidth.of(op, bytes, execNanos, comm.ranks(), crossesNoLink);
    List<KernelChannelTrace> channels = channels(b, o);
    int startSn = Short.toUnsignedInt(b.getShort(o + l.startSn));
    int stopSn = Short.toUnsignedInt(b.getShort(o + l.stopSn));
    long step = b.getLong(o + l.step);
    String phase = PhaseNames.nameOf(Short.toUnsignedInt(b.getShort(o + l.phase)));
    if (kind == l.kindColl) {
      return new CollectiveRecord(comm, op, b.getLong(o + l.seq), b.getLong(o + l.count), datatype,
          bytes, peerOrRoot, core.name(NativeCore.TABLE_ALGO, u8(b, o + l.algo)),
          core.name(NativeCore.TABLE_PROTO, u8(b, o + l.proto)), u8(b, o + l.nChannels),
          u8(b, o + l.channelsSeen), u8(b, o + l.nWarps), execNanos, timing, bw.algorithmGbs(),
          bw.busGbs(), b.getLong(o + l.gpuStartNs), b.getLong(o + l.gpuSpanNs), skew, quarantine,
          b.getLong(o + l.startWallNs), b.getLong(o + l.stopWallNs), flags, channels, startSn,
          stopSn, step, phase, desynced, launchWall);
    }
    return new P2pRecord(comm, op, b.getLong(o + l.seq), peerOrRoot, b.getLong(o + l.count),
        datatype, bytes, u8(b, o + l.nChannels), u8(b, o + l.channelsSeen), execNanos, timing,
        bw.algorithmGbs(), bw.busGbs(), b.getLong(o + l.gpuStartNs), b.getLong(o + l.gpuSpanNs), skew,
        quarantine, b.getLong(o + l.startWallNs), b.getLong(o + l.stopWallNs), flags, channels, startSn, stopSn,
        step, phase, desynced, launchWall);
  }

  private List<KernelChannelTrace> channels(ByteBuffer b, int o) {
    int cells = Short.toUnsignedInt(b.getShort(o + l.cells));
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
