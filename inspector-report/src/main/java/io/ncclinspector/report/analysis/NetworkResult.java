package io.ncclinspector.report.analysis;

import java.util.Comparator;
import java.util.List;

/**
 * The network section of the report (see {@link NetworkAnalysis}).
 *
 * @param records records with a usable identity, looked at
 * @param withBreakdown of them, those with a network breakdown (NCCL's proxy events: network
 *     transports only)
 * @param implausible breakdowns with a value out of any plausible range (a negative or
 *     day-long wait, more than 2^50 bytes): left out
 * @param withProxyDetail breakdowns that list their proxy operations (verbose logs): the source
 *     of the per-peer bytes
 * @param waits operations that name a slowest peer (a receive waited for its first chunk)
 * @param notableWaits those that waited notably longer than usual
 * @param lateThresholdUs the least excess that makes a wait notable
 * @param ranks per communicator rank
 * @param links per communicator, rank and peer: the rank × peer matrix
 * @param waitedFor per communicator rank that others waited for
 * @param notes what could not be worked out, and why
 */
public record NetworkResult(
    long records,
    long withBreakdown,
    long implausible,
    long withProxyDetail,
    long waits,
    long notableWaits,
    double lateThresholdUs,
    List<NetRank> ranks,
    List<NetLink> links,
    List<NetWaitedFor> waitedFor,
    List<String> notes) {
  public NetworkResult {
    ranks = List.copyOf(ranks);
    links = List.copyOf(links);
    waitedFor = List.copyOf(waitedFor);
    notes = List.copyOf(notes);
  }

  /** Whether any record had a usable network breakdown. */
  public boolean found() {
    return withBreakdown > implausible;
  }

  /** Whether per-peer bytes were available (verbose records). */
  public boolean perPeerBytes() {
    return withProxyDetail > 0;
  }

  /** The {@code n} links with the most wait attributed to the peer, most first. */
  public List<NetLink> slowestLinks(int n) {
    return links.stream().filter(l -> l.slowestOps() > 0)
        .sorted(Comparator.comparingDouble(NetLink::waitTotalMs).reversed()
            .thenComparing(NetLink::commId).thenComparingInt(NetLink::rank)
            .thenComparingInt(NetLink::peer))
        .limit(n).toList();
  }

  /** The ranks others waited for notably, most notable waits first, then most excess. */
  public List<NetWaitedFor> lateRanks() {
    return waitedFor.stream().filter(w -> w.notableWaits() > 0)
        .sorted(Comparator.comparingLong(NetWaitedFor::notableWaits).reversed()
            .thenComparing(Comparator.comparingDouble(NetWaitedFor::excessTotalMs).reversed())
            .thenComparing(NetWaitedFor::commId).thenComparingInt(NetWaitedFor::rank))
        .toList();
  }
}
