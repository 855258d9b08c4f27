package io.ncclinspector.report.analysis;

/**
 * One cell of a communicator's rank × peer matrix (see {@link NetworkAnalysis}): how long
 * {@code rank} waited for {@code peer}, and what went between them where the records list their
 * proxy operations (verbose logs).
 *
 * @param slowestOps operations where {@code peer} was the rank's slowest peer: its receive from
 *     that peer waited longest for the first chunk
 * @param waitTotalMs the waits of those operations, summed: the wait attributed to the peer
 * @param waitP50Us their median
 * @param waitMaxUs the longest
 * @param notableWaits those that exceed the rank's usual wait by at least the usual wait itself
 *     and the late threshold (see {@link NetworkAnalysis})
 * @param excessTotalMs the excess of the notable waits over the usual wait, summed
 * @param bytesToPeer bytes sent to the peer, from the proxy operations of verbose records; null
 *     when no record of the rank lists its proxy operations
 * @param bytesFromPeer bytes received from the peer, the same way
 * @param sendGbs bytes sent to the peer over the time from the first post to the last done of
 *     those proxy operations, per operation (GB/s; waits included, as in {@code net_time})
 * @param receiveGbs the same for bytes received from the peer
 */
public record NetLink(
    String commId,
    String commName,
    int rank,
    int peer,
    long slowestOps,
    double waitTotalMs,
    Double waitP50Us,
    Double waitMaxUs,
    long notableWaits,
    double excessTotalMs,
    Long bytesToPeer,
    Long bytesFromPeer,
    Double sendGbs,
    Double receiveGbs) {}
