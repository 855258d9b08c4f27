package io.ncclinspector.export;

import io.ncclinspector.NetworkBreakdown;

/**
 * One communicator's network figures summed over its operations that had a network breakdown
 * ({@link NetworkBreakdown#present()}), as the metric exporters write them per communicator.
 *
 * @param operations operations with a network breakdown
 * @param bytesSent bytes the proxy handed to the network ({@link NetworkBreakdown#bytesSent()})
 * @param bytesReceived bytes received
 * @param networkNanos first chunk posted to last proxy operation done
 *     ({@link NetworkBreakdown#networkNanos()}: 0 for an operation whose proxy work never finished)
 * @param sendGpuWaitNanos waits for the own GPU's first chunk ({@link NetworkBreakdown#sendGpuWaitNanos()})
 */
public record NetworkTotals(long operations, long bytesSent, long bytesReceived, long networkNanos,
    long sendGpuWaitNanos) {

  /** No operation yet. */
  public static final NetworkTotals ZERO = new NetworkTotals(0, 0, 0, 0, 0);

  /** These totals and one more operation's breakdown (negative figures count as 0). */
  public NetworkTotals plus(NetworkBreakdown n) {
    return new NetworkTotals(operations + 1, bytesSent + Math.max(0, n.bytesSent()),
        bytesReceived + Math.max(0, n.bytesReceived()), networkNanos + n.networkNanos(),
        sendGpuWaitNanos + Math.max(0, n.sendGpuWaitNanos()));
  }
}
