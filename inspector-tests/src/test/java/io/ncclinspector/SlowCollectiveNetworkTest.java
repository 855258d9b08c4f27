package io.ncclinspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.SlowCollectiveEvent.Kind;
import io.ncclinspector.internal.SlowCollectiveDetector;
import io.ncclinspector.testkit.RecordBuilder;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * On a network transport the kind of a slow collective comes from its network breakdown: which
 * wait grew. The figures are those of the planted runs over sockets ({@code s28_late},
 * {@code s28_gpuslow}, docs/output.md "Network breakdown"): normally a 4 MiB AllReduce takes 4.5
 * ms, 2.1 ms of it waiting for the peer's first data and 0.08 ms for the own GPU's (a 5 ms late
 * peer made it 11.2 ms with an 8.7 ms wait for that peer). Here the planted delays are 25 ms, past
 * the detector's default of five times the class's normal bound.
 */
class SlowCollectiveNetworkTest {
  private static final CommunicatorInfo COMM = new CommunicatorInfo(1, 0x1234L, "dp", 0, 2, 2, 5);
  private static final long WALL = 1_795_942_870_000_000_000L;

  private static CollectiveRecord record(long seq, long execNanos, long receiveWait, long gpuWait, long network,
      int slowestPeer) {
    long wall = WALL + seq * 20_000_000;
    return RecordBuilder.collective(COMM, "AllReduce").sequence(seq).messageBytes(4L << 20).algorithm("RING", "SIMPLE")
        .executionNanos(execNanos).algorithmBandwidthGbs(1).busBandwidthGbs(1)
        .gpu(wall + 20_000, execNanos + 128, 128).startWallNanos(wall)
        .network(new NetworkBreakdown(4L << 20, 4L << 20, wall + 50_000, wall + 50_000 + network, gpuWait,
            receiveWait, slowestPeer, 1, wall + network, 4, 4, List.of()))
        .buildCollective();
  }

  /** As {@link #record}, with the proxy thread's posting time of its 16 steps. */
  private static CollectiveRecord withLag(CollectiveRecord r, long proxyLag) {
    NetworkBreakdown n = r.network().withWaits(new NetworkBreakdown.StepWaits(15_000, 2_000, 1, 1, true, 200_000,
        20_000, true, proxyLag, proxyLag / 8, true, 16));
    return RecordBuilder.from(r).network(n).buildCollective();
  }

  /** A detector that has seen 200 ordinary collectives with a little jitter. */
  private static SlowCollectiveDetector warmed() {
    SlowCollectiveDetector d = new SlowCollectiveDetector(SlowCollectiveDetection.defaults().withoutRateLimit());
    Random rnd = new Random(5);
    for (int i = 0; i < 200; i++) {
      long jitter = rnd.nextInt(100_000);
      assertNull(d.observe(record(i, 4_500_000 + jitter, 2_100_000 + jitter, 80_000, 4_530_000 + jitter, 1)));
    }
    return d;
  }

  @Test
  void aWaitForALatePeerNamesThePeer() {
    SlowCollectiveEvent e = warmed().observe(record(200, 30_000_000, 27_200_000, 81_000, 30_045_000, 1));
    assertNotNull(e);
    assertEquals(Kind.WAITING_FOR_PEERS, e.kind());
    assertEquals(1, e.waitedForPeer());
    assertTrue(e.describe().contains("waiting for peers (rank 1, "), e.describe());
  }

  @Test
  void aLateOwnGpuIsNotCalledAWaitForPeers() {
    SlowCollectiveEvent e = warmed().observe(record(200, 30_000_000, 2_200_000, 25_200_000, 30_045_000, 1));
    assertNotNull(e);
    assertEquals(Kind.UNKNOWN, e.kind());
    assertEquals(-1, e.waitedForPeer());
  }

  /**
   * A proxy thread that takes 280 µs to post each of 16 steps (4.5 ms of a 7 ms network time, as
   * rank 1 of {@code s28_proxy}): named whatever grew, with its rank.
   */
  @Test
  void aSlowProxyThreadIsNamedWithItsRank() {
    SlowCollectiveEvent e = warmed().observe(withLag(record(200, 30_000_000, 27_200_000, 81_000, 30_045_000, 1),
        16 * 280_000));
    assertNotNull(e);
    assertEquals(Kind.PROXY_THREAD_SLOW, e.kind());
    assertEquals(0, e.slowProxyRank());
    assertEquals(-1, e.waitedForPeer());
    assertTrue(e.describe().endsWith(
        "proxy thread slow (rank 0's own: 4.5 ms posting 16 steps of its 30.0 ms on the network)"),
        e.describe());
  }

  /** The usual few µs a step, or long posting that is a small part of the network time: not named. */
  @Test
  void usualPostingOrASmallShareIsNoSlowProxy() {
    SlowCollectiveEvent usual = warmed().observe(withLag(record(200, 30_000_000, 27_200_000, 81_000, 30_045_000, 1),
        16 * 3_000));
    assertEquals(Kind.WAITING_FOR_PEERS, usual.kind());
    assertEquals(-1, usual.slowProxyRank());
    /* 150 µs a step, 2.4 ms in all: under a tenth of a 30 ms network time. */
    SlowCollectiveEvent small = warmed().observe(withLag(record(200, 30_000_000, 2_200_000, 90_000, 29_900_000, 1),
        16 * 150_000));
    assertEquals(Kind.SLOW_TRANSFER, small.kind());
    /* Unknown posting time (an older core's record): never named. */
    assertEquals(Kind.WAITING_FOR_PEERS,
        warmed().observe(record(200, 30_000_000, 27_200_000, 81_000, 30_045_000, 1)).kind());
  }

  @Test
  void aSlowTransferWithUsualWaitsIsASlowTransfer() {
    SlowCollectiveEvent e = warmed().observe(record(200, 30_000_000, 2_200_000, 90_000, 29_900_000, 1));
    assertNotNull(e);
    assertEquals(Kind.SLOW_TRANSFER, e.kind());
    assertEquals(-1, e.waitedForPeer());
  }
}
