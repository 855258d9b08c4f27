package io.ncclinspector.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.Algorithm;
import io.ncclinspector.Channels;
import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.EventTrace;
import io.ncclinspector.NetworkBreakdown;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.Tags;
import io.ncclinspector.Timing;
import io.ncclinspector.TimingSource;
import io.ncclinspector.Transfer;
import io.ncclinspector.UntimedReason;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NetworkPeersTest {
  private static final CommunicatorInfo COMM = new CommunicatorInfo(7, 0xabcL, "dp", 3, 16, 2, 5);

  /** A breakdown of 1000 bytes out, 2000 in, 50 µs on the network, with its slowest peer. */
  static NetworkBreakdown net(int slowestPeer, long receiveWaitNanos) {
    return new NetworkBreakdown(1000, 2000, 1_000_000, 1_050_000, 7_000, receiveWaitNanos, slowestPeer,
        slowestPeer < 0 ? -1 : 2, slowestPeer < 0 ? 0 : 1_040_000, 4, 4, List.of());
  }

  static OperationRecord record(NetworkBreakdown n, Quarantine q) {
    Timing t = new Timing(20_000, TimingSource.KERNEL_GPU, q, 0, 0, 0, 1, 0, 0, UntimedReason.NONE);
    return new CollectiveRecord(COMM, "AllReduce", 1, 0, new Algorithm("RING", "SIMPLE", 8),
        new Transfer(256, "float", 1024, 1, 1), t, new Channels(1, 1, 0), Tags.NONE, Set.of(), EventTrace.NONE,
        CollectiveRecord.CALL_NUMBER_UNKNOWN, n);
  }

  static OperationRecord record(int slowestPeer, long receiveWaitNanos) {
    return record(net(slowestPeer, receiveWaitNanos), Quarantine.NONE);
  }

  @Test
  void totalsPerCommunicatorAndWaitsPerPeer() {
    NetworkPeers<Long> p = new NetworkPeers<>(8);
    assertTrue(p.add(record(5, 300), 7L));
    assertTrue(p.add(record(5, 100), 7L));
    assertTrue(p.add(record(2, 50), 7L));
    assertTrue(p.add(record(-1, 0), 7L)); /* sends only: totals, no peer */
    /* Quarantine is about GPU timestamps; the breakdown comes from the host clock. */
    assertTrue(p.add(record(net(2, 10), Quarantine.GPU_TIMESTAMP_ZERO), 7L));
    assertFalse(p.add(record(NetworkBreakdown.NONE, Quarantine.NONE), 7L), "NVLink: nothing");
    assertFalse(NetworkPeers.contributes(record(NetworkBreakdown.NONE, Quarantine.NONE)));

    CommunicatorNetwork<Long> c = p.communicator(7L).orElseThrow();
    assertEquals(new NetworkTotals(5, 5000, 10_000, 250_000, 35_000), c.totals());
    assertEquals(c.totals(), p.totals(7L));
    assertEquals(List.of(new PeerWait("2", 2, 60), new PeerWait("5", 2, 400)), c.peers(), "by rank");
    assertEquals(COMM, c.communicator());
    assertEquals(List.of(c), p.snapshot());
    assertEquals(new PeerWait("5", 2, 400), p.peer(7L, "5"));
    assertEquals(new PeerWait("9", 0, 0), p.peer(7L, "9"));
    assertEquals(new PeerWait("5", 0, 0), p.peer(8L, "5"));
    assertEquals(NetworkTotals.ZERO, p.totals(8L));
    assertTrue(p.communicator(8L).isEmpty());
  }

  @Test
  void peersPastTheLimitAreFoldedIntoOther() {
    NetworkPeers<Long> p = new NetworkPeers<>(2);
    p.add(record(1, 100), 7L);
    p.add(record(2, 100), 7L);
    p.add(record(3, 50), 7L); /* no label free, less wait than the least labelled: folded */
    p.add(record(4, 10), 7L);
    p.add(record(1, 100), 7L);
    assertEquals(List.of(new PeerWait("1", 2, 200), new PeerWait("2", 1, 100), new PeerWait("other", 2, 60)),
        p.communicator(7L).orElseThrow().peers());
    assertEquals(new PeerWait("other", 2, 60), p.peer(7L, "other"));
    assertEquals(new PeerWait("3", 0, 0), p.peer(7L, "3"), "never had a label");
  }

  @Test
  void aFoldedPeerTakesTheLabelOfTheLeastOnceItOutwaitsItByAnEighth() {
    NetworkPeers<Long> p = new NetworkPeers<>(2);
    p.add(record(1, 1000), 7L);
    p.add(record(2, 800), 7L);
    p.add(record(3, 900), 7L); /* 900 against 800: not an eighth more (900 - 800 <= 100) */
    assertEquals(List.of("1", "2", "other"), labels(p));
    p.add(record(3, 1), 7L); /* 901 - 800 > 100: peer 3 takes peer 2's label */
    assertEquals(List.of("1", "3", "other"), labels(p));
    List<PeerWait> now = p.communicator(7L).orElseThrow().peers();
    /* Peer 3's label counts from when it had it; what came before stays in other, which only grows. */
    assertEquals(new PeerWait("3", 1, 1), now.get(1));
    assertEquals(new PeerWait("other", 1, 900), now.get(2));
    /* Peer 2's label is gone; what it counted stays for the day it wins the label back. */
    assertEquals(new PeerWait("2", 1, 800), p.peer(7L, "2"));
    p.add(record(2, 50), 7L); /* 850 against 901 (least now): folded */
    assertEquals(new PeerWait("other", 2, 950), p.peer(7L, "other"));
    p.add(record(2, 300), 7L); /* 1150 - 901 > 112: back, going on from 800 */
    assertEquals(List.of("1", "2", "other"), labels(p));
    assertEquals(new PeerWait("2", 2, 1100), p.peer(7L, "2"));
    assertEquals(new PeerWait("3", 1, 1), p.peer(7L, "3"));
  }

  @Test
  void communicatorsPastTheLimitAreCounted() {
    NetworkPeers<Long> p = new NetworkPeers<>(8, 2);
    assertTrue(p.add(record(1, 1), 1L));
    assertTrue(p.add(record(1, 1), 2L));
    assertFalse(p.add(record(1, 1), 3L));
    assertFalse(p.add(record(1, 1), 3L));
    assertFalse(p.add(record(NetworkBreakdown.NONE, Quarantine.NONE), 4L), "no breakdown: not an overflow");
    assertTrue(p.add(record(1, 1), 1L));
    assertEquals(2, p.overflow());
    assertEquals(List.of(1L, 2L), p.snapshot().stream().map(CommunicatorNetwork::key).toList());
    assertEquals(8, p.maxPeers());
    assertEquals(2, p.maxCommunicators());
    assertThrows(IllegalArgumentException.class, () -> new NetworkPeers<Long>(0));
    assertThrows(IllegalArgumentException.class, () -> new NetworkPeers<Long>(1, 0));
  }

  private static List<String> labels(NetworkPeers<Long> p) {
    return p.communicator(7L).orElseThrow().peers().stream().map(PeerWait::peer).toList();
  }
}
