package io.ncclinspector.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.testsupport.TestData;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The network breakdown against causes planted on the GPU machine (one H200, two ranks over
 * loopback sockets, NCCL 2.28.9; {@code examples/release-matrix.sh} with PLANTS=1, workloads of
 * {@code examples/torch/nccl_workloads.py}): 200 AllReduce of 4 MiB, and before every 10th
 * (AllReduce #6, #16, ...: the first collective is the process group's own), rank 1 either
 * arrives 5 ms late ({@code s28_late}) or first keeps its GPU busy for 5 ms ({@code s28_gpuslow}).
 * Both ranks' callbacks were recorded; each is replayed here as its process would have seen it.
 *
 * <p>What must hold: a late rank shows on the other rank as a longer wait for that peer's first
 * chunk, naming the peer; a delayed GPU shows on its own rank as a longer wait for its GPU's first
 * chunk, and on the other as a wait for that peer. Over NVLink NCCL makes no proxy events, and no
 * breakdown is written.
 */
class NetworkBreakdownTest {
  /** Planted: 5 ms. Seen: 4.9-6.6 ms more than the median of the other collectives. */
  private static final long PLANTED_AT_LEAST_NS = 4_000_000;

  @TempDir Path out;

  /** Medians of one rank's collectives: those planted on (sn % 10 == 6) and the others. */
  private record Medians(int rank, long plantedRecvWait, long otherRecvWait, long plantedGpuWait, long otherGpuWait,
      int plantedSlowestPeer, int records) {}

  @Test
  void aLatePeerShowsAsTheWaitForItsFirstChunk() throws IOException {
    Map<Integer, Medians> ranks = replay("s28_late");
    Medians waiting = ranks.get(0);
    assertTrue(waiting.plantedRecvWait() - waiting.otherRecvWait() >= PLANTED_AT_LEAST_NS, waiting.toString());
    assertEquals(1, waiting.plantedSlowestPeer(), waiting.toString());
    /* Its own GPU was not late. */
    assertTrue(Math.abs(waiting.plantedGpuWait() - waiting.otherGpuWait()) < 200_000, waiting.toString());
    /* The late rank itself waited for nothing more. */
    Medians late = ranks.get(1);
    assertTrue(late.plantedRecvWait() <= late.otherRecvWait() + 200_000, late.toString());
    assertTrue(late.plantedGpuWait() <= late.otherGpuWait() + 200_000, late.toString());
  }

  @Test
  void aBusyGpuShowsAsItsOwnWaitAndAsThePeersWaitForIt() throws IOException {
    Map<Integer, Medians> ranks = replay("s28_gpuslow");
    Medians busy = ranks.get(1);
    assertTrue(busy.plantedGpuWait() - busy.otherGpuWait() >= PLANTED_AT_LEAST_NS, busy.toString());
    assertTrue(busy.plantedRecvWait() <= busy.otherRecvWait() + 200_000, busy.toString());
    Medians waiting = ranks.get(0);
    assertTrue(waiting.plantedRecvWait() - waiting.otherRecvWait() >= PLANTED_AT_LEAST_NS, waiting.toString());
    assertEquals(1, waiting.plantedSlowestPeer(), waiting.toString());
  }

  /**
   * Verbose: each proxy operation lists its steps with their phases. On {@code s28_proxy} every
   * step of rank 1 (whose proxy thread slept 200 µs in each step's start) took at least 200 µs to
   * be posted; rank 0's took a few µs (median). A 4 MiB AllReduce's proxy operations have 4 steps
   * each: all shown, none cut short.
   */
  @Test
  void verboseStepsShowWhereEachStepsTimeWent() throws IOException {
    for (Path trace : TestData.traceFiles("s28_proxy")) {
      ReplayResult r = TraceReplayer.replay(trace, config(out.resolve("verbose")).verbose(true).build(), "vm");
      List<JsonNode> records = ReferenceConformanceTest.readLines(r.outputFile().orElseThrow());
      int rank = records.get(0).get("header").get("rank").asInt();
      List<Long> posts = new ArrayList<>();
      int steps = 0;
      for (JsonNode rec : records) {
        JsonNode p = rec.get("coll_perf");
        if (p == null || p.get("coll_msg_size_bytes").asLong() != 4L << 20) {
          continue;
        }
        long lag = 0;
        for (JsonNode op : p.get("event_trace_ts").get("proxy_ops")) {
          assertFalse(op.has("steps_truncated"), op.toString());
          assertEquals(op.get("steps").asInt(), op.get("step_detail").size(), op.toString());
          for (JsonNode st : op.get("step_detail")) {
            assertEquals("done", st.get("state").asText(), st.toString());
            posts.add(st.get("post_ns").asLong());
            lag += st.get("post_ns").asLong();
            steps++;
          }
        }
        /* The summary's sum is the steps' (every step of these proxy operations is shown). */
        assertEquals(p.get("coll_net_proxy_lag_ns").asLong(), lag, p.toString());
      }
      assertTrue(steps >= 200 * 16, "rank " + rank + ": steps " + steps);
      posts.sort(null);
      if (rank == 1) {
        assertTrue(posts.get(0) >= 200_000, "rank 1's shortest posting " + posts.get(0));
      } else {
        assertTrue(median(posts) < 20_000, "rank 0's median posting " + median(posts));
      }
    }
  }

  @Test
  void overNvlinkThereIsNoBreakdown() throws IOException {
    Path trace = TestData.traceFiles("n2_coal").get(0);
    ReplayResult r = TraceReplayer.replay(trace, config(out.resolve("n2")).build(), "vm");
    List<JsonNode> records = ReferenceConformanceTest.readLines(r.outputFile().orElseThrow());
    assertFalse(records.isEmpty());
    for (JsonNode rec : records) {
      JsonNode perf = rec.has("coll_perf") ? rec.get("coll_perf") : rec.get("p2p_perf");
      perf.fieldNames().forEachRemaining(f -> assertFalse(f.contains("_net_"), f));
    }
  }

  private Map<Integer, Medians> replay(String scenario) throws IOException {
    Map<Integer, Medians> byRank = new HashMap<>();
    for (Path trace : TestData.traceFiles(scenario)) {
      ReplayResult r = TraceReplayer.replay(trace, config(out.resolve(scenario)).build(), "vm");
      List<JsonNode> records = ReferenceConformanceTest.readLines(r.outputFile().orElseThrow());
      int rank = records.get(0).get("header").get("rank").asInt();
      List<Long> plantedRecv = new ArrayList<>(), otherRecv = new ArrayList<>();
      List<Long> plantedGpu = new ArrayList<>(), otherGpu = new ArrayList<>();
      Map<Integer, Integer> slowest = new HashMap<>();
      int withBreakdown = 0;
      for (JsonNode rec : records) {
        JsonNode p = rec.get("coll_perf");
        if (p == null || !p.has("coll_net_proxy_ops")) {
          continue;
        }
        withBreakdown++;
        if (p.get("coll_msg_size_bytes").asLong() == 4L << 20) {
          /* Ring AllReduce of two ranks on 2 channels: a send and a receive each, and each rank
           * sends and receives the whole message (a reduce-scatter and an all-gather of half). */
          assertEquals(4, p.get("coll_net_proxy_ops").asInt(), p.toString());
          assertEquals(4L << 20, p.get("coll_net_bytes_sent").asLong(), p.toString());
          assertEquals(4L << 20, p.get("coll_net_bytes_recv").asLong(), p.toString());
        }
        long sn = p.get("coll_sn").asLong();
        boolean planted = sn % 10 == 6;
        (planted ? plantedRecv : otherRecv).add(p.get("coll_net_recv_wait_ns").asLong());
        (planted ? plantedGpu : otherGpu).add(p.get("coll_net_send_gpu_wait_ns").asLong());
        if (planted) {
          slowest.merge(p.get("coll_net_slowest_peer").asInt(), 1, Integer::sum);
        }
      }
      assertTrue(withBreakdown >= 200, scenario + " rank " + rank + ": records with a breakdown " + withBreakdown);
      int peer = slowest.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
      Medians m = new Medians(rank, median(plantedRecv), median(otherRecv), median(plantedGpu), median(otherGpu), peer,
          withBreakdown);
      System.out.println(scenario + ": " + m);
      byRank.put(rank, m);
    }
    assertEquals(2, byRank.size());
    return byRank;
  }

  private static long median(List<Long> values) {
    assertFalse(values.isEmpty());
    List<Long> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get(sorted.size() / 2);
  }

  private static InspectorConfig.Builder config(Path dir) {
    return InspectorConfig.builder().dumpDirectory(dir).minMessageBytes(0).requireKernelTiming(false);
  }
}
