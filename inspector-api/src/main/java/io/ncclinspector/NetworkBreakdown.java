package io.ncclinspector;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Where an operation's time went on a network transport, from NCCL's proxy events (between nodes,
 * or between ranks over sockets). NVLink and shared-memory transports have no proxy events: their
 * operations carry {@link #NONE}, and nothing is estimated in its place.
 *
 * <p>NCCL's proxy thread moves each chunk ("step") of a send after the GPU produced it, and each
 * chunk of a receive when it arrives; the breakdown keeps, per operation, what answers why it was
 * slow: a long {@link #sendGpuWaitNanos()} is the own GPU late to produce data (its kernel started
 * late, or earlier work delayed it); a long {@link #receiveWaitNanos()} is a peer late to send,
 * and {@link #slowestPeer()} says which; a {@link #networkNanos()} much longer than both is the
 * transfer itself.
 *
 * @param bytesSent bytes the proxy handed to the network for sends
 * @param bytesReceived bytes received
 * @param firstPostWallNanos wall-clock ns at which the first chunk was posted
 * @param lastDoneWallNanos wall-clock ns at which the last proxy operation finished, 0 if one
 *     never did ({@link RecordFlag#PROXY_INCOMPLETE})
 * @param sendGpuWaitNanos the longest wait, over the sends, from posting to the own GPU's first
 *     chunk ready
 * @param receiveWaitNanos the longest wait, over the receives, from posting to the first chunk's
 *     arrival: a late peer, plus one chunk's transfer
 * @param slowestPeer the peer of that longest receive wait, -1 without receives
 * @param slowestChannel its channel
 * @param lastArrivalWallNanos wall-clock ns at which the last chunk arrived, 0 without receives:
 *     a receive's real completion
 * @param proxyOperations proxy operations NCCL reported (one per channel, peer and direction)
 * @param proxyOperationsTracked those in this breakdown (the rest: {@link RecordFlag#PROXY_TRUNCATED})
 * @param transfers in verbose mode, one per tracked proxy operation; empty otherwise
 * @param waits the waits inside the steps: for the peer's credit, the flush, the proxy thread's own
 *     time ({@link StepWaits#UNKNOWN} where the core did not measure them)
 */
public record NetworkBreakdown(long bytesSent, long bytesReceived, long firstPostWallNanos,
    long lastDoneWallNanos, long sendGpuWaitNanos, long receiveWaitNanos, int slowestPeer,
    int slowestChannel, long lastArrivalWallNanos, int proxyOperations, int proxyOperationsTracked,
    List<ProxyTransfer> transfers, StepWaits waits) {

  /** No proxy events: NVLink, shared memory, or the breakdown turned off. */
  public static final NetworkBreakdown NONE = new NetworkBreakdown(0, 0, 0, 0, 0, 0, -1, -1, 0, 0, 0, List.of());

  public NetworkBreakdown {
    transfers = List.copyOf(Objects.requireNonNull(transfers, "transfers"));
    Objects.requireNonNull(waits, "waits");
  }

  /** A breakdown without the waits inside the steps ({@link StepWaits#UNKNOWN}). */
  public NetworkBreakdown(long bytesSent, long bytesReceived, long firstPostWallNanos, long lastDoneWallNanos,
      long sendGpuWaitNanos, long receiveWaitNanos, int slowestPeer, int slowestChannel, long lastArrivalWallNanos,
      int proxyOperations, int proxyOperationsTracked, List<ProxyTransfer> transfers) {
    this(bytesSent, bytesReceived, firstPostWallNanos, lastDoneWallNanos, sendGpuWaitNanos, receiveWaitNanos,
        slowestPeer, slowestChannel, lastArrivalWallNanos, proxyOperations, proxyOperationsTracked, transfers,
        StepWaits.UNKNOWN);
  }

  /** This breakdown with the given waits inside the steps. */
  public NetworkBreakdown withWaits(StepWaits w) {
    return new NetworkBreakdown(bytesSent, bytesReceived, firstPostWallNanos, lastDoneWallNanos, sendGpuWaitNanos,
        receiveWaitNanos, slowestPeer, slowestChannel, lastArrivalWallNanos, proxyOperations, proxyOperationsTracked,
        transfers, w);
  }

  /** Whether NCCL reported proxy events for the operation. */
  public boolean present() {
    return proxyOperations > 0;
  }

  /** First chunk posted to last proxy operation done; 0 when one never finished. */
  public long networkNanos() {
    return lastDoneWallNanos > firstPostWallNanos && firstPostWallNanos != 0
        ? lastDoneWallNanos - firstPostWallNanos : 0;
  }

  /**
   * What happened inside the steps, summed over the tracked proxy operations' steps (ns), with
   * the longest single step of each. Each sum is known only where NCCL's states let the core
   * measure it: the wait for the peer's credit needs ProxyStep state {@code SendPeerWait}, which
   * NCCL has from profiler interface v4 (NCCL 2.27) on; the flush needs a receive that went from
   * {@code RecvFlushWait} to {@code RecvGPUWait}. Unknown sums are empty, never zero.
   *
   * @param sendPeerWaitNanos sends: from the chunk ready ({@code SendPeerWait}) to handed to the
   *     network ({@code SendWait}): the wait for the receiving peer's credit, summed over the steps
   * @param sendPeerWaitMaxNanos the longest of one step
   * @param peerWaitPeer the peer of the send with that longest wait, -1 when unknown
   * @param peerWaitChannel its channel
   * @param peerWaitKnown whether a send step went through {@code SendPeerWait}
   * @param receiveFlushNanos receives: from arrived ({@code RecvFlushWait}) to handed to the GPU
   *     ({@code RecvGPUWait}), summed
   * @param receiveFlushMaxNanos the longest of one step
   * @param flushKnown whether a receive step went through both states
   * @param proxyLagNanos every step: from its start to its posted state ({@code SendGPUWait},
   *     {@code RecvWait}), summed: the proxy thread's own time, since NCCL waits for nothing in
   *     between (normally a few µs a step)
   * @param proxyLagMaxNanos the longest of one step
   * @param lagKnown whether a step reached its posted state
   * @param steps steps started over the tracked proxy operations
   */
  public record StepWaits(long sendPeerWaitNanos, long sendPeerWaitMaxNanos, int peerWaitPeer, int peerWaitChannel,
      boolean peerWaitKnown, long receiveFlushNanos, long receiveFlushMaxNanos, boolean flushKnown,
      long proxyLagNanos, long proxyLagMaxNanos, boolean lagKnown, long steps) {

    /** Nothing measured. */
    public static final StepWaits UNKNOWN = new StepWaits(0, 0, -1, -1, false, 0, 0, false, 0, 0, false, 0);

    /** The sends' wait for the peer's credit, summed; empty when NCCL's interface has no such state. */
    public OptionalLong sendPeerWait() {
      return peerWaitKnown ? OptionalLong.of(sendPeerWaitNanos) : OptionalLong.empty();
    }

    /** The receives' flush time, summed; empty when no receive step was flushed. */
    public OptionalLong receiveFlush() {
      return flushKnown ? OptionalLong.of(receiveFlushNanos) : OptionalLong.empty();
    }

    /** The proxy thread's own posting time, summed; empty when no step was posted. */
    public OptionalLong proxyLag() {
      return lagKnown ? OptionalLong.of(proxyLagNanos) : OptionalLong.empty();
    }
  }

  /**
   * One step of a proxy operation (verbose mode): when it started and how long each phase took
   * (ns; 0 for a phase it did not reach, saturated at 4.29 s).
   *
   * @param step NCCL's step number
   * @param state how far it got
   * @param startWallNanos wall-clock ns of its start
   * @param postNanos start to posted: the proxy thread's own time
   * @param waitNanos send: posted to ready, the wait for the own GPU's data; receive: posted to
   *     arrived, the wait for the peer's data
   * @param moveNanos send: ready to handed to the network, the wait for the peer's credit;
   *     receive: arrived to flushed
   * @param doneNanos send: handed to the network to done; receive: flushed to consumed by the GPU
   */
  public record ProxyStep(long step, StepState state, long startWallNanos, long postNanos, long waitNanos,
      long moveNanos, long doneNanos) {}

  /** How far a proxy step got. */
  public enum StepState {
    STARTED, POSTED, READY, MOVED, DONE;

    /** Lower case, as in the JSON output. */
    public String jsonName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * One proxy operation: the chunks of one channel to or from one peer.
   *
   * @param peer the peer rank
   * @param channel the channel
   * @param send a send (else a receive)
   * @param steps chunks posted
   * @param stepsDone chunks done
   * @param announcedSteps chunks NCCL announced
   * @param bytes bytes sent or received
   * @param firstPostWallNanos first chunk posted
   * @param firstReadyWallNanos send: first chunk ready on the GPU; receive: first chunk arrived
   * @param lastReadyWallNanos receive: last chunk arrived (0 for a send)
   * @param doneWallNanos the proxy operation finished, 0 if it never did
   * @param stepDetail its last steps (at most eight: the core keeps NCCL's steps in flight), oldest
   *     first; fewer than {@code steps} when it had more ({@link #stepsTruncated()})
   */
  public record ProxyTransfer(int peer, int channel, boolean send, long steps, int stepsDone, int announcedSteps,
      long bytes, long firstPostWallNanos, long firstReadyWallNanos, long lastReadyWallNanos, long doneWallNanos,
      List<ProxyStep> stepDetail) {

    public ProxyTransfer {
      stepDetail = List.copyOf(Objects.requireNonNull(stepDetail, "stepDetail"));
    }

    /** A proxy operation without its steps. */
    public ProxyTransfer(int peer, int channel, boolean send, long steps, int stepsDone, int announcedSteps,
        long bytes, long firstPostWallNanos, long firstReadyWallNanos, long lastReadyWallNanos, long doneWallNanos) {
      this(peer, channel, send, steps, stepsDone, announcedSteps, bytes, firstPostWallNanos, firstReadyWallNanos,
          lastReadyWallNanos, doneWallNanos, List.of());
    }

    /** Whether it had more steps than {@link #stepDetail()} shows (false without any step detail). */
    public boolean stepsTruncated() {
      return !stepDetail.isEmpty() && steps > stepDetail.size();
    }
  }
}
