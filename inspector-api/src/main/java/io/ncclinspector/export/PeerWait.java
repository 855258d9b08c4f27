package io.ncclinspector.export;

/**
 * The receive waits one peer label of a communicator stands for: the operations whose slowest
 * peer ({@link io.ncclinspector.NetworkBreakdown#slowestPeer()}) it was, and their receive waits
 * ({@link io.ncclinspector.NetworkBreakdown#receiveWaitNanos()}).
 *
 * @param peer the peer's rank in the communicator, in decimal, or {@link NetworkPeers#OTHER} for
 *     the peers folded together
 * @param operations operations attributed to the label
 * @param waitNanos their receive waits, summed
 */
public record PeerWait(String peer, long operations, long waitNanos) {}
