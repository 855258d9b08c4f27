package io.ncclinspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.SlowCollectiveEvent.Kind;
import io.ncclinspector.internal.SlowCollectiveDetector;
import io.ncclinspector.testsupport.TestData;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each cause planted on the GPU machine is named by the slow-collective kinds, and no other is
 * (one H200, two ranks over loopback sockets, NCCL 2.28.9, 200 AllReduce of 4 MiB; the planted
 * rank is always rank 1): {@code s28_late}, rank 1 arrives 5 ms late before every 10th collective;
 * {@code s28_gpuslow}, rank 1's GPU is kept busy 5 ms first; {@code s28_proxy}, rank 1's proxy
 * thread sleeps 200 µs in every ProxyStep start, for the whole run.
 *
 * <p>A proxy thread slowed for the whole run makes every collective of its class slow alike, so
 * no record is slow against its class; the detection here has an absolute threshold of 6 ms, as a
 * user who knows that this AllReduce takes 4.5 ms would set, and a factor of 1.5.
 */
class PlantedNetworkCausesTest {
  private static final SlowCollectiveDetection DETECTION = SlowCollectiveDetection.defaults().withoutRateLimit()
      .withFactor(1.5).withAbsoluteThreshold(Duration.ofMillis(6));

  /** What one rank's replay said. */
  private record Rank(int rank, int records, int proxySlowRecords, Map<Kind, Integer> plantedKinds,
      Map<Kind, Integer> otherKinds, Map<Integer, Integer> plantedPeers, int proxySlowNamedRank,
      long medianProxyLagUs, long maxProxyLagUs, long medianPeerWaitUs, long medianFlushUs) {
    int planted(Kind k) {
      return plantedKinds.getOrDefault(k, 0);
    }

    int all(Kind k) {
      return planted(k) + otherKinds.getOrDefault(k, 0);
    }
  }

  @TempDir static Path out;
  private static final Map<String, Map<Integer, Rank>> RUNS = new HashMap<>();

  @BeforeAll
  static void replayTheFixtures() throws IOException {
    for (String scenario : List.of("s28_late", "s28_gpuslow", "s28_proxy")) {
      Map<Integer, Rank> ranks = new HashMap<>();
      int i = 0;
      for (Path trace : TestData.traceFiles(scenario)) {
        ListenedReplay run = ListenedReplay.of(trace, DETECTION, out.resolve(scenario + "-" + i++));
        Rank r = summarize(run);
        System.out.println(scenario + ": " + r);
        ranks.put(r.rank(), r);
      }
      assertEquals(2, ranks.size(), scenario);
      RUNS.put(scenario, ranks);
    }
  }

  private static Rank summarize(ListenedReplay run) {
    int rank = run.records().get(0).communicator().rank();
    int withBreakdown = 0;
    int proxySlow = 0;
    List<Long> lags = new java.util.ArrayList<>();
    List<Long> peerWaits = new java.util.ArrayList<>();
    List<Long> flushes = new java.util.ArrayList<>();
    for (OperationRecord r : run.records()) {
      if (r.network().present()) {
        withBreakdown++;
        NetworkBreakdown.StepWaits w = r.network().waits();
        assertTrue(w.lagKnown() && w.peerWaitKnown() && w.flushKnown(), "NCCL 2.28.9, interface v5: " + w);
        lags.add(w.proxyLagNanos());
        peerWaits.add(w.sendPeerWaitNanos());
        flushes.add(w.receiveFlushNanos());
        if (SlowCollectiveDetector.proxyThreadSlow(r.network())) {
          proxySlow++;
        }
      }
    }
    Map<Kind, Integer> planted = new EnumMap<>(Kind.class);
    Map<Kind, Integer> other = new EnumMap<>(Kind.class);
    Map<Integer, Integer> peers = new HashMap<>();
    int namedRank = -2;
    for (SlowCollectiveEvent e : run.slow()) {
      boolean isPlanted = e.record().sequence() % 10 == 6;
      (isPlanted ? planted : other).merge(e.kind(), 1, Integer::sum);
      if (isPlanted && e.waitedForPeer() >= 0) {
        peers.merge(e.waitedForPeer(), 1, Integer::sum);
      }
      if (e.kind() == Kind.PROXY_THREAD_SLOW) {
        assertTrue(e.describe().contains("proxy thread slow (rank " + e.slowProxyRank() + "'s own: "), e.describe());
        namedRank = namedRank == -2 || namedRank == e.slowProxyRank() ? e.slowProxyRank() : -3;
      }
    }
    return new Rank(rank, withBreakdown, proxySlow, planted, other, peers, namedRank, median(lags) / 1000,
        lags.stream().mapToLong(Long::longValue).max().orElse(0) / 1000, median(peerWaits) / 1000,
        median(flushes) / 1000);
  }

  private static long median(List<Long> values) {
    List<Long> sorted = new java.util.ArrayList<>(values);
    sorted.sort(null);
    return sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
  }

  @Test
  void aLateRankIsNamedByThePeerThatWaitedForIt() {
    Rank waiting = RUNS.get("s28_late").get(0);
    assertTrue(waiting.planted(Kind.WAITING_FOR_PEERS) >= 15, waiting.toString());
    assertEquals(waiting.planted(Kind.WAITING_FOR_PEERS), waiting.plantedPeers().getOrDefault(1, 0),
        "every one names rank 1: " + waiting);
    for (Rank r : RUNS.get("s28_late").values()) {
      assertEquals(0, r.all(Kind.PROXY_THREAD_SLOW), r.toString());
      assertEquals(0, r.proxySlowRecords(), r.toString());
    }
  }

  @Test
  void aBusyGpuIsNotCalledAWaitNorASlowProxy() {
    Rank busy = RUNS.get("s28_gpuslow").get(1);
    /* Its kernels only started late: their own time is as usual, so none of its planted
     * collectives is slow on this rank (its breakdown's own-GPU wait says what happened:
     * NetworkBreakdownTest), and none is called a wait for a peer. */
    assertEquals(0, busy.planted(Kind.WAITING_FOR_PEERS), busy.toString());
    Rank waiting = RUNS.get("s28_gpuslow").get(0);
    assertTrue(waiting.planted(Kind.WAITING_FOR_PEERS) >= 15, waiting.toString());
    assertEquals(waiting.planted(Kind.WAITING_FOR_PEERS), waiting.plantedPeers().getOrDefault(1, 0), waiting.toString());
    for (Rank r : RUNS.get("s28_gpuslow").values()) {
      assertEquals(0, r.all(Kind.PROXY_THREAD_SLOW), r.toString());
      assertEquals(0, r.proxySlowRecords(), r.toString());
    }
  }

  @Test
  void aSlowProxyThreadIsNamedOnItsOwnRankOnly() {
    Rank slow = RUNS.get("s28_proxy").get(1);
    /* Nearly every record carries the evidence (the run's first collectives excepted). */
    assertTrue(slow.proxySlowRecords() >= slow.records() * 9 / 10, slow.toString());
    int named = slow.all(Kind.PROXY_THREAD_SLOW);
    int reported = slow.plantedKinds().values().stream().mapToInt(Integer::intValue).sum()
        + slow.otherKinds().values().stream().mapToInt(Integer::intValue).sum();
    assertTrue(named >= 100 && named >= reported * 9 / 10, slow.toString());
    assertEquals(1, slow.proxySlowNamedRank(), slow.toString());
    Rank peer = RUNS.get("s28_proxy").get(0);
    assertEquals(0, peer.all(Kind.PROXY_THREAD_SLOW), peer.toString());
    assertEquals(0, peer.proxySlowRecords(), peer.toString());
    assertNotEquals(0, peer.records(), peer.toString());
  }
}
