package io.ncclinspector.format;

import java.util.Arrays;
import java.util.List;

/**
 * The fields of the perf object ({@code coll_perf} or {@code p2p_perf}), in the order the core's
 * writer writes them. Most are named with the kind's prefix ({@code coll_sn}, {@code p2p_sn});
 * the verbose event traces are not ({@code event_trace_sn}). Fields the writer leaves out when they
 * have no value: the GPU times (no GPU timing), step and phase (no tag), the quarantine reason,
 * the untimed reason, the desynchronized channel count, the call number (unknown), the network breakdown (no proxy events), the upper-bound mark and the flags (when there are none), the
 * event traces (unless verbose).
 */
public enum PerfField implements RecordField {
  /** The operation's name: {@code coll} or {@code p2p} ({@code AllReduce}, {@code Send}, ...). */
  OPERATION("", FieldType.STRING, Origin.REFERENCE, null),
  SEQUENCE("_sn", FieldType.LONG, Origin.REFERENCE, null),
  PEER("_peer", FieldType.INT, Origin.REFERENCE, RecordKind.P2P),
  MESSAGE_BYTES("_msg_size_bytes", FieldType.UNSIGNED_LONG, Origin.REFERENCE, null),
  EXEC_TIME_US("_exec_time_us", FieldType.LONG, Origin.REFERENCE, null),
  /** {@code kernel_gpu}, {@code kernel_cpu}, {@code collective_cpu}, ... */
  TIMING_SOURCE("_timing_source", FieldType.STRING, Origin.REFERENCE, null),
  ALGORITHM_BANDWIDTH("_algobw_gbs", FieldType.DOUBLE, Origin.REFERENCE, null),
  BUS_BANDWIDTH("_busbw_gbs", FieldType.DOUBLE, Origin.REFERENCE, null),
  EXEC_TIME_NS("_exec_time_ns", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  ALGORITHM("_algo", FieldType.STRING, Origin.INSPECTOR_JVM, RecordKind.COLL),
  PROTOCOL("_proto", FieldType.STRING, Origin.INSPECTOR_JVM, RecordKind.COLL),
  DATATYPE("_datatype", FieldType.STRING, Origin.INSPECTOR_JVM, null),
  COUNT("_count", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  ROOT("_root", FieldType.INT, Origin.INSPECTOR_JVM, RecordKind.COLL),
  NCHANNELS("_nchannels", FieldType.INT, Origin.INSPECTOR_JVM, null),
  CHANNELS_SEEN("_channels_seen", FieldType.INT, Origin.INSPECTOR_JVM, null),
  NWARPS("_nwarps", FieldType.INT, Origin.INSPECTOR_JVM, RecordKind.COLL),
  /** The earliest kernel channel's GPU start (GPU global timer, ns). */
  GPU_START_NS("_gpu_start_ns", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  GPU_SPAN_NS("_gpu_span_ns", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  GPU_SKEW_NS("_gpu_skew_ns", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  STEP("_step", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  PHASE("_phase", FieldType.STRING, Origin.INSPECTOR_JVM, null),
  QUARANTINE_REASON("_quarantine_reason", FieldType.STRING, Origin.INSPECTOR_JVM, null),
  /** Why an operation that ran has no time ({@code nccl_broadcast_allgatherv}, ...), where known. */
  UNTIMED_REASON("_untimed_reason", FieldType.STRING, Origin.INSPECTOR_JVM, null),
  CHANNELS_DESYNCED("_channels_desynced", FieldType.INT, Origin.INSPECTOR_JVM, null),
  /** The application's call: its number among the communicator's collective calls, where known. */
  API_SN("_api_sn", FieldType.LONG, Origin.INSPECTOR_JVM, RecordKind.COLL),
  /** How the GPU time was obtained: {@code direct}, {@code recovered}, {@code withheld} (channel recovery). */
  TIME_RECOVERY("_time_recovery", FieldType.STRING, Origin.INSPECTOR_JVM, null),
  /** Channels timed by timestamps a later operation handed on (written when > 0). */
  CHANNELS_RECOVERED("_channels_recovered", FieldType.INT, Origin.INSPECTOR_JVM, null),
  /** With {@code recovered}: the most work items without a host count ahead of its own on one channel. */
  MAX_CHANNEL_LAG("_max_channel_lag", FieldType.INT, Origin.INSPECTOR_JVM, null),
  /** Why channels were left out ({@code slot_reused}, {@code never_delivered}, ...), where some were. */
  WITHHELD_REASON("_withheld_reason", FieldType.STRING, Origin.INSPECTOR_JVM, null),
  /** Why channel recovery was off for its communicator, where it was. */
  RECOVERY_OFF_REASON("_recovery_off_reason", FieldType.STRING, Origin.INSPECTOR_JVM, null),
  /** Network breakdown (proxy events; written only where NCCL reported them): bytes sent. */
  NET_BYTES_SENT("_net_bytes_sent", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  NET_BYTES_RECV("_net_bytes_recv", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  /** First chunk posted to last proxy operation done (left out when one never finished). */
  NET_TIME_NS("_net_time_ns", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  /** Longest wait of a send for the own GPU's first chunk. */
  NET_SEND_GPU_WAIT_NS("_net_send_gpu_wait_ns", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  /** Longest wait of a receive for a peer's first chunk. */
  NET_RECV_WAIT_NS("_net_recv_wait_ns", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  /** The peer of that longest receive wait (written when there were receives). */
  NET_SLOWEST_PEER("_net_slowest_peer", FieldType.INT, Origin.INSPECTOR_JVM, null),
  NET_SLOWEST_CHANNEL("_net_slowest_channel", FieldType.INT, Origin.INSPECTOR_JVM, null),
  /** Wall-clock µs of the last chunk received: a receive's real completion. */
  NET_LAST_ARRIVAL_TS("_net_last_arrival_ts", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  /** Proxy operations NCCL reported (one per channel, peer and direction). */
  NET_PROXY_OPS("_net_proxy_ops", FieldType.INT, Origin.INSPECTOR_JVM, null),
  /**
   * Sends: the wait for the receiving peer's credit (ProxyStep {@code SendPeerWait} to
   * {@code SendWait}), summed over the steps. Left out where NCCL has no such state (profiler
   * interface before v4) or there was no send.
   */
  NET_SEND_PEER_WAIT_NS("_net_send_peer_wait_ns", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  /** The longest of one send step (written with the sum). */
  NET_SEND_PEER_WAIT_MAX_NS("_net_send_peer_wait_max_ns", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  /** The peer of that longest wait for credit (written with the sum). */
  NET_SEND_PEER_WAIT_PEER("_net_send_peer_wait_peer", FieldType.INT, Origin.INSPECTOR_JVM, null),
  /** Receives: the flush ({@code RecvFlushWait} to {@code RecvGPUWait}), summed; left out without one. */
  NET_RECV_FLUSH_NS("_net_recv_flush_ns", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  /** The longest flush of one step (written with the sum). */
  NET_RECV_FLUSH_MAX_NS("_net_recv_flush_max_ns", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  /**
   * Every step: its start to its posted state ({@code SendGPUWait}, {@code RecvWait}), summed: the
   * proxy thread's own time, in which NCCL waits for nothing (normally a few µs a step).
   */
  NET_PROXY_LAG_NS("_net_proxy_lag_ns", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  /** The longest of one step (written with the sum). */
  NET_PROXY_LAG_MAX_NS("_net_proxy_lag_max_ns", FieldType.LONG, Origin.INSPECTOR_JVM, null),
  /**
   * True when the execution time is a lower bound and so the bandwidths upper bounds: a P2P time
   * that ends at the send side, or a collective timed from its in-step channels only.
   */
  BW_IS_UPPER_BOUND("_bw_is_upper_bound", FieldType.BOOLEAN, Origin.INSPECTOR_JVM, null),
  FLAGS("_flags", FieldType.STRING_LIST, Origin.INSPECTOR_JVM, null),
  /** Verbose: the event sequence numbers ({@link TraceField}, {@link KernelEventField}). */
  EVENT_TRACE_SN(null, FieldType.OBJECT, Origin.REFERENCE, null),
  /** Verbose: the event timestamps ({@link TraceField}, {@link KernelEventField}). */
  EVENT_TRACE_TS(null, FieldType.OBJECT, Origin.REFERENCE, null);

  private final String suffix; /* null: not prefixed, the lower-case constant name */
  private final FieldType type;
  private final Origin origin;
  private final RecordKind only; /* null: both kinds */

  PerfField(String suffix, FieldType type, Origin origin, RecordKind only) {
    this.suffix = suffix;
    this.type = type;
    this.origin = origin;
    this.only = only;
  }

  /** The perf fields a record of this kind has, in the writer's order. */
  public static List<PerfField> of(RecordKind kind) {
    return Arrays.stream(values()).filter(f -> f.appliesTo(kind)).toList();
  }

  @Override
  public String jsonName(RecordKind kind) {
    if (!appliesTo(kind)) {
      throw new IllegalArgumentException(name() + " is not a field of " + kind.perfObject());
    }
    return suffix == null ? name().toLowerCase(java.util.Locale.ROOT) : kind.prefix() + suffix;
  }

  @Override
  public String objectName(RecordKind kind) {
    return kind.perfObject();
  }

  @Override
  public FieldType type() {
    return type;
  }

  @Override
  public Origin origin() {
    return origin;
  }

  @Override
  public boolean appliesTo(RecordKind kind) {
    return only == null || only == kind;
  }
}
