package io.ncclinspector.report.analysis;

/**
 * The receives of one rank from one peer, of one message size, whose true completion could be worked out
 * from the sending peer's log (see {@link P2pCompletion}).
 *
 * @param pairs receives paired with their send and measured
 * @param peerLater how many of them completed only at the peer's send-side stop, after the
 *     receiver's own kernel had recorded its stop
 * @param reportedP50Us median of the receive's own GPU time, as logged (its kernel's send-side stop)
 * @param completionP50Us median time from the receive's start to the data's arrival: the later of
 *     its own stop and the peer's send-side stop, on the receiver's clock
 * @param extensionP50Us median of (completion − own time) over the pairs where the peer was later
 * @param extensionMaxUs the largest such difference
 */
public record P2pTransfer(
    String commId,
    String commName,
    int rank,
    int peer,
    long msgSizeBytes,
    long pairs,
    long peerLater,
    Double reportedP50Us,
    Double completionP50Us,
    Double completionP99Us,
    Double extensionP50Us,
    Double extensionMaxUs) {}
