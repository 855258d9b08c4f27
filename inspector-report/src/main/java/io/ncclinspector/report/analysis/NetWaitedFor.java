package io.ncclinspector.report.analysis;

/**
 * How often and how long the other ranks of a communicator waited for one rank, as their slowest
 * peer, and why (see {@link NetworkAnalysis} and {@link WaitCause}).
 *
 * @param waitedOps operations of other ranks that named this rank their slowest peer
 * @param waitTotalMs those operations' waits, summed
 * @param waitP50Us their median
 * @param notableWaits those waits that were notable: well over the waiting rank's usual wait
 * @param excessTotalMs the excess of the notable waits over the usual, summed
 * @param excessP50Us its median
 * @param ownGpuLate notable waits at which this rank's own wait for its GPU's first chunk was
 *     longer than usual by at least half the excess: its GPU was late
 * @param arrivedLate notable waits at which it was not: the rank itself came to the operation late
 * @param unknown notable waits whose operation this rank's logs do not have (or not with a
 *     breakdown)
 * @param ownGpuExcessP50Us median of this rank's GPU wait over its usual, at the classified notable
 *     waits
 * @param verdict the class of most of the classified notable waits ({@link WaitCause#label})
 */
public record NetWaitedFor(
    String commId,
    String commName,
    int rank,
    String hostname,
    Long pid,
    long waitedOps,
    double waitTotalMs,
    Double waitP50Us,
    long notableWaits,
    double excessTotalMs,
    Double excessP50Us,
    long ownGpuLate,
    long arrivedLate,
    long unknown,
    Double ownGpuExcessP50Us,
    String verdict) {}
