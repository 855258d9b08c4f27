package io.ncclinspector.testkit;

import io.ncclinspector.Algorithm;
import io.ncclinspector.Channels;
import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.EventTrace;
import io.ncclinspector.KernelChannelTrace;
import io.ncclinspector.NetworkBreakdown;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.P2pRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.RecordFlag;
import io.ncclinspector.Tags;
import io.ncclinspector.Timing;
import io.ncclinspector.TimingSource;
import io.ncclinspector.Transfer;
import io.ncclinspector.UntimedReason;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Builds operation records for tests of code that consumes them (a listener, an exporter, a
 * metrics binding), with the values of a plain GPU-timed operation unless told otherwise:
 *
 * <pre>{@code
 * OperationRecord r = RecordBuilder.collective(comm, "AllReduce").messageBytes(1 << 20)
 *     .executionNanos(42_000).busBandwidthGbs(180).step(7).build();
 * }</pre>
 *
 * <p>Defaults: sequence 0; a collective of {@code ncclFloat32} (count = bytes / 4), RING/SIMPLE,
 * 16 warps, root 0; a point-to-point operation of {@code ncclInt8} (count = bytes), peer 1; 8
 * channels announced and seen; 0 bytes, 0 ns, {@code kernel_gpu} timing, not quarantined; no
 * bandwidths, GPU or wall-clock times unless set; no tags and no flags; callbacks 1 and 2.
 */
public final class RecordBuilder {
  private final boolean collective;
  private final CommunicatorInfo communicator;
  private final String operation;
  private long sequence;
  private long count = -1;
  private String datatype;
  private long messageBytes;
  private int rootOrPeer;
  private String algorithm = "RING";
  private String protocol = "SIMPLE";
  private int warps = 16;
  private int announcedChannels = 8;
  private int channelsSeen = 8;
  private int desyncedChannels;
  private io.ncclinspector.TimeRecovery timeRecovery = io.ncclinspector.TimeRecovery.NONE;
  private long executionNanos;
  private TimingSource timingSource = TimingSource.KERNEL_GPU;
  private Quarantine quarantine = Quarantine.NONE;
  private double algorithmBandwidthGbs;
  private double busBandwidthGbs;
  private long gpuStartNanos;
  private long gpuSpanNanos;
  private long gpuSkewNanos;
  private long startWallNanos;
  private long stopWallNanos;
  private long launchWallNanos;
  private UntimedReason untimedReason = UntimedReason.NONE;
  private long callNumber = CollectiveRecord.CALL_NUMBER_UNKNOWN;
  private NetworkBreakdown network = NetworkBreakdown.NONE;
  private final Set<RecordFlag> flags = EnumSet.noneOf(RecordFlag.class);
  private long step = -1;
  private String phase;
  private int startSequence = 1;
  private int stopSequence = 2;
  private List<KernelChannelTrace> channelTraces = List.of();

  private RecordBuilder(boolean collective, CommunicatorInfo communicator, String operation) {
    this.collective = collective;
    this.communicator = Objects.requireNonNull(communicator, "communicator");
    this.operation = Objects.requireNonNull(operation, "operation");
    this.datatype = collective ? "ncclFloat32" : "ncclInt8";
    this.rootOrPeer = collective ? 0 : 1;
  }

  /** A collective (AllReduce, AllGather, ...). */
  public static RecordBuilder collective(CommunicatorInfo communicator, String operation) {
    return new RecordBuilder(true, communicator, operation);
  }

  /** A point-to-point operation (Send, Recv). */
  public static RecordBuilder p2p(CommunicatorInfo communicator, String operation) {
    return new RecordBuilder(false, communicator, operation);
  }

  /** Starts from an existing record: change what the test needs and build again. */
  public static RecordBuilder from(OperationRecord r) {
    RecordBuilder b = new RecordBuilder(r instanceof CollectiveRecord, r.communicator(), r.operation());
    b.sequence = r.sequence();
    b.count = r.transfer().count();
    b.datatype = r.transfer().datatype();
    b.messageBytes = r.transfer().messageBytes();
    b.algorithmBandwidthGbs = r.transfer().algorithmBandwidthGbs();
    b.busBandwidthGbs = r.transfer().busBandwidthGbs();
    Timing t = r.timing();
    b.executionNanos = t.executionNanos();
    b.timingSource = t.source();
    b.quarantine = t.quarantine();
    b.gpuStartNanos = t.gpuStartNanos();
    b.gpuSpanNanos = t.gpuSpanNanos();
    b.gpuSkewNanos = t.gpuSkewNanos();
    b.startWallNanos = t.startWallNanos();
    b.stopWallNanos = t.stopWallNanos();
    b.launchWallNanos = t.launchWallNanos();
    b.untimedReason = t.untimedReason();
    b.announcedChannels = r.channels().announced();
    b.channelsSeen = r.channels().seen();
    b.desyncedChannels = r.channels().desynced();
    b.timeRecovery = r.channels().recovery();
    b.flags.addAll(r.flags());
    b.step = r.tags().step();
    b.phase = r.tags().phase();
    b.startSequence = r.trace().startSequence();
    b.stopSequence = r.trace().stopSequence();
    b.channelTraces = r.trace().channels();
    b.network = r.network();
    if (r instanceof CollectiveRecord c) {
      b.rootOrPeer = c.root();
      b.callNumber = c.callNumber();
      b.algorithm = c.algorithm().name();
      b.protocol = c.algorithm().protocol();
      b.warps = c.algorithm().warps();
    } else if (r instanceof P2pRecord p) {
      b.rootOrPeer = p.peer();
    }
    return b;
  }

  public RecordBuilder sequence(long v) {
    sequence = v;
    return this;
  }

  /** Elements (by default derived from the size and the datatype). */
  public RecordBuilder count(long v) {
    count = v;
    return this;
  }

  public RecordBuilder datatype(String v) {
    datatype = Objects.requireNonNull(v);
    return this;
  }

  public RecordBuilder messageBytes(long v) {
    messageBytes = v;
    return this;
  }

  /** The root rank of a collective, or the peer of a point-to-point operation. */
  public RecordBuilder rootOrPeer(int v) {
    rootOrPeer = v;
    return this;
  }

  public RecordBuilder algorithm(String name, String protocol) {
    this.algorithm = Objects.requireNonNull(name);
    this.protocol = Objects.requireNonNull(protocol);
    return this;
  }

  public RecordBuilder warps(int v) {
    warps = v;
    return this;
  }

  public RecordBuilder channels(int announced, int seen) {
    announcedChannels = announced;
    channelsSeen = seen;
    return this;
  }

  /** How the GPU time was obtained (channel recovery); default {@link io.ncclinspector.TimeRecovery#NONE}. */
  public RecordBuilder timeRecovery(io.ncclinspector.TimeRecovery v) {
    timeRecovery = v;
    return this;
  }

  public RecordBuilder desyncedChannels(int v) {
    desyncedChannels = v;
    return this;
  }

  public RecordBuilder executionNanos(long v) {
    executionNanos = v;
    return this;
  }

  public RecordBuilder timingSource(TimingSource v) {
    timingSource = Objects.requireNonNull(v);
    return this;
  }

  public RecordBuilder quarantine(Quarantine v) {
    quarantine = Objects.requireNonNull(v);
    return this;
  }

  public RecordBuilder algorithmBandwidthGbs(double v) {
    algorithmBandwidthGbs = v;
    return this;
  }

  public RecordBuilder busBandwidthGbs(double v) {
    busBandwidthGbs = v;
    return this;
  }

  /** GPU start (global-timer ns), span and skew of the channels. */
  public RecordBuilder gpu(long startNanos, long spanNanos, long skewNanos) {
    gpuStartNanos = startNanos;
    gpuSpanNanos = spanNanos;
    gpuSkewNanos = skewNanos;
    return this;
  }

  public RecordBuilder startWallNanos(long v) {
    startWallNanos = v;
    return this;
  }

  public RecordBuilder stopWallNanos(long v) {
    stopWallNanos = v;
    return this;
  }

  public RecordBuilder launchWallNanos(long v) {
    launchWallNanos = v;
    return this;
  }

  /** Why an operation that ran has no time (default {@link UntimedReason#NONE}). */
  public RecordBuilder untimedReason(UntimedReason v) {
    untimedReason = v;
    return this;
  }

  /** The network breakdown (default none: no proxy events). */
  public RecordBuilder network(NetworkBreakdown v) {
    network = java.util.Objects.requireNonNull(v, "network");
    return this;
  }

  /** A collective's call number in its communicator (default unknown). */
  public RecordBuilder callNumber(long v) {
    callNumber = v;
    return this;
  }

  public RecordBuilder flags(RecordFlag... v) {
    flags.addAll(List.of(v));
    return this;
  }

  public RecordBuilder step(long v) {
    step = v;
    return this;
  }

  public RecordBuilder phase(String v) {
    phase = v;
    return this;
  }

  /** Callback sequence numbers of the start and stop events, and the verbose channel list. */
  public RecordBuilder trace(int start, int stop, List<KernelChannelTrace> channels) {
    startSequence = start;
    stopSequence = stop;
    channelTraces = List.copyOf(channels);
    return this;
  }

  public OperationRecord build() {
    Transfer transfer = new Transfer(count >= 0 ? count : collective ? messageBytes / 4 : messageBytes, datatype,
        messageBytes, algorithmBandwidthGbs, busBandwidthGbs);
    Timing timing = new Timing(executionNanos, timingSource, quarantine, gpuStartNanos, gpuSpanNanos, gpuSkewNanos,
        startWallNanos, stopWallNanos, launchWallNanos, untimedReason);
    Channels channels = new Channels(announcedChannels, channelsSeen, desyncedChannels, timeRecovery);
    Tags tags = step < 0 && phase == null ? Tags.NONE : new Tags(step, phase);
    EventTrace trace = new EventTrace(startSequence, stopSequence, channelTraces);
    if (collective) {
      return new CollectiveRecord(communicator, operation, sequence, rootOrPeer,
          new Algorithm(algorithm, protocol, warps), transfer, timing, channels, tags, flags, trace, callNumber,
          network);
    }
    return new P2pRecord(communicator, operation, sequence, rootOrPeer, transfer, timing, channels, tags, flags,
        trace, network);
  }

  /** {@link #build()} for a collective. */
  public CollectiveRecord buildCollective() {
    if (!collective) {
      throw new IllegalStateException("a point-to-point builder");
    }
    return (CollectiveRecord) build();
  }
}
