package io.ncclinspector;

import java.util.List;
import java.util.Objects;

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
 */
public record NetworkBreakdown(long bytesSent, long bytesReceived, long firstPostWallNanos,
    long lastDoneWallNanos, long sendGpuWaitNanos, long receiveWaitNanos, int slowestPeer,
    int slowestChannel, long lastArrivalWallNanos, int proxyOperations, int proxyOperationsTracked,
    List<ProxyTransfer> transfers) {

  /** No proxy events: NVLink, shared memory, or the breakdown turned off. */
  public static final NetworkBreakdown NONE = new NetworkBreakdown(0, 0, 0, 0, 0, 0, -1, -1, 0, 0, 0, List.of());

  public NetworkBreakdown {
    transfers = List.copyOf(Objects.requireNonNull(transfers, "transfers"));
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
   */
  public record ProxyTransfer(int peer, int channel, boolean send, long steps, int stepsDone, int announcedSteps,
      long bytes, long firstPostWallNanos, long firstReadyWallNanos, long lastReadyWallNanos, long doneWallNanos) {}
}
