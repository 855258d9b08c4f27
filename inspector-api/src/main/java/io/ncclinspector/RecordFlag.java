package io.ncclinspector;

import java.util.Set;

/** Facts about how a record came about, beyond its timing source. */
public enum RecordFlag {
  /** Closed before every announced kernel channel stopped. */
  INCOMPLETE,
  /** No kernel channel ever started for it. */
  NO_KERNEL_EVENTS,
  /** Closed by the in-flight expiry (no kernel channel joined in time). */
  EXPIRED,
  /** Closed early to make room in the in-flight table. */
  EVICTED,
  /** Closed by communicator finalize or inspector close. */
  FLUSHED,
  /** A send or receive to the own rank (NCCL runs no kernel channel for it). */
  SELF_P2P,
  /** More kernel channels started than NCCL announced. */
  EXTRA_CHANNELS,
  /** Datatype "Unknown" (NCCL 2.28's name for uint8), counted as one byte per element. */
  UINT8_NAMED_UNKNOWN,
  /** Verbose channel list shorter than the channels seen. */
  CHANNELS_TRUNCATED,
  /** A copy-engine collective (profiler interface v6). */
  COPY_ENGINE,
  /** Its GPU timestamps were unusable; see {@link Timing#quarantine()}. */
  QUARANTINED,
  /**
   * Launched by a replay of a CUDA graph that captured it (interface v5 and later): NCCL reports
   * every replay as an operation of its own.
   */
  GRAPH_LAUNCHED,
  /**
   * Some kernel channels carried other work items' timestamps and were left out; the time comes
   * from the channels that ran in step ({@link Channels#desynced()} says how many
   * were left out). The channels left out may have run longer: the time is a lower bound (on two
   * ranks over sockets, one channel of two ran 2-8.5 µs short of its 4.4 ms kernel).
   */
  DESYNC_CHANNELS_EXCLUDED,
  /**
   * A point-to-point GPU time: NCCL writes each channel's stop when the send part of its work
   * ends, so the time ends at the send side. For a receive the data may arrive later: the time is a
   * lower bound and its bandwidths upper bounds.
   */
  SEND_SIDE_STOP,
  /**
   * NCCL gave the application's call no operation event (NCCL 2.29 and later route ncclBroadcast
   * through a path without events; symmetric-kernel collectives): the record comes from the call
   * itself, untimed; {@link Timing#untimedReason()} says why.
   */
  NOT_PROFILED_BY_NCCL,
  /**
   * NCCL reported more proxy operations than the network breakdown keeps (15 per operation):
   * {@link NetworkBreakdown#proxyOperationsTracked()} says how many it covers.
   */
  PROXY_TRUNCATED,
  /**
   * The record was closed while some of its proxy operations had not finished (1 s after its
   * kernel, or by a flush): the network breakdown lacks their end.
   */
  PROXY_INCOMPLETE;

  /**
   * Whether these flags make a record's execution time a lower bound (its bandwidths upper
   * bounds): a send-side stop, or channels left out. See
   * {@link OperationRecord#executionTimeIsLowerBound()}.
   */
  public static boolean timeIsLowerBound(Set<RecordFlag> flags) {
    return flags.contains(SEND_SIDE_STOP) || flags.contains(DESYNC_CHANNELS_EXCLUDED);
  }

  private final String jsonName = name().toLowerCase(java.util.Locale.ROOT);

  /** The flag's name in JSON output. */
  public String jsonName() {
    return jsonName;
  }
}
