package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ncclinspector.report.analysis.ClockSync;
import io.ncclinspector.report.analysis.P2pCompletionResult;
import io.ncclinspector.report.analysis.P2pTransfer;
import io.ncclinspector.report.output.OutputFiles;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A P2P record's GPU time ends at its kernel's send-side stop; the report works out when a
 * receive's data really arrived from the sending peer's log.
 */
class P2pCompletionTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long T0 = 1_800_000_000_000_000_000L;
  private static final long US = 1_000;
  /** Rank 1's GPU clock runs this far ahead of rank 0's. */
  private static final long OFFSET_1 = 500 * US;
  /** The communicator of the collectives, whose ends give the clock offsets. */
  private static final String WORLD = "0x00000000000000ab";
  /** A pipeline communicator of the same two processes: P2P only, no offsets of its own. */
  private static final String PIPELINE = "0x00000000000000cd";

  @TempDir Path tmp;

  /**
   * The recorded 2 x H200 run with CUPTI's kernel durations (n2_truth), both ranks' logs
   * replayed from their traces. Rank 1 reaches each ring Send/Recv ~200 µs after rank 0: rank 0's
   * SendRecv kernel waits that long for its data, while its records, stopped at the send side,
   * say 10 µs. The completion the report works out from rank 1's send must match rank 0's kernel
   * as CUPTI measured it, receive for receive.
   */
  @Test
  void receiveCompletionMatchesTheKernelsMeasuredByCupti() throws Exception {
    Path logs = Path.of("src/test/resources/replayed/n2_truth");
    long receives = 0;
    try (Stream<Path> files = Files.list(logs)) {
      for (Path f : files.filter(p -> !p.toString().contains("quarantine")).toList()) {
        for (JsonNode n : read(f)) {
          JsonNode p = n.path("p2p_perf");
          if (p.path("p2p").asText().equals("Recv")
              && p.path("p2p_peer").asInt() != n.path("header").path("rank").asInt()) {
            receives++;
          }
        }
      }
    }
    ReportResult r = TestSupport.report(tmp.resolve("out"), logs.toString());
    P2pCompletionResult c = r.data().p2pCompletion();
    assertEquals(132, receives);
    assertEquals(receives, c.receives());
    assertEquals(receives, c.measured());

    /* Rank 0's SendRecv kernels in launch order, with their CUPTI durations. */
    List<Double> kernels = new ArrayList<>();
    for (String line : Files.readAllLines(TestSupport.testDataDir()
        .resolve("traces/n2_truth/cupti-rank0.ndjson"))) {
      JsonNode k = JSON.readTree(line);
      if (k.path("name").asText().startsWith("ncclDevKernel_SendRecv")) {
        kernels.add(k.path("dur_us").asDouble());
      }
    }
    List<double[]> rank0 = new ArrayList<>();
    try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = db.createStatement();
        ResultSet rs = st.executeQuery("SELECT logged_us, completion_us FROM read_parquet('"
            + tmp.resolve("out").resolve(OutputFiles.P2P_RECEIVES) + "') WHERE rank = 0"
            + " ORDER BY sn")) {
      while (rs.next()) {
        rank0.add(new double[] {rs.getDouble(1), rs.getDouble(2)});
      }
    }
    assertEquals(kernels.size(), rank0.size(), "one receive per SendRecv kernel");
    int waited = 0;
    for (int i = 0; i < kernels.size(); i++) {
      double kernel = kernels.get(i);
      double logged = rank0.get(i)[0];
      double done = rank0.get(i)[1];
      String what = "receive " + i + ": kernel " + kernel + " µs, logged " + logged
          + " µs, completion " + done + " µs";
      // A channel's time is its kernel's less launch and teardown (2.8-3.6 µs in step); the
      // clock offsets come from estimates, so allow a few µs either way.
      assertTrue(done <= kernel + 3 && done >= kernel - 10, what);
      if (kernel > 3 * logged) {
        waited++;
      }
    }
    assertTrue(waited > 60, waited + " receives waited for their data well past the logged stop");

    /* Rank 1 arrived last: its data was there; nothing to extend. */
    for (P2pTransfer t : c.transfers()) {
      if (t.rank() == 1) {
        assertEquals(0, t.peerLater(), t.toString());
      } else {
        assertEquals(t.pairs(), t.peerLater(), t.toString());
        assertTrue(t.completionP50Us() > 20 * t.reportedP50Us(), t.toString());
      }
    }
    String html = Files.readString(tmp.resolve("out/report.html"));
    assertTrue(html.contains("Point-to-point completion"));
    assertTrue(Files.readString(tmp.resolve("out/p2p_completion.csv")).lines().count() == 5);
  }

  /**
   * Two processes, the second's GPU clock 500 µs ahead (seen in the ends of ten AllReduces of
   * their world communicator), and receives of every kind in their pipeline communicator, which
   * runs no collective: completed by the peer, by itself, sizes that do not pair, a CPU-timed one,
   * one whose send is not in the logs; and two other processes that share no communicator with
   * collectives, so their clocks cannot be related.
   */
  @Test
  void pairsReceivesWithSendsAndRemovesTheClockOffset() throws Exception {
    List<String> r0 = new ArrayList<>();
    List<String> r1 = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      long start = T0 + i * 1000 * US;
      // Rank 1 arrives 20 µs late; both end together in true time.
      r0.add(coll(0, i, start, 100 * US));
      r1.add(coll(1, i, start + 20 * US + OFFSET_1, 80 * US));
    }
    long t = T0 + 20_000 * US;
    // 1. Rank 0 receives from rank 1, whose send ends 200 µs after rank 0's receive started.
    r0.add(p2p(0, "Recv", 1, 10, 2 << 20, t, 10 * US, true));
    r1.add(p2p(1, "Send", 0, 10, 2 << 20, t + 190 * US + OFFSET_1, 10 * US, true));
    // 2. Rank 1 receives from rank 0, whose send ended before rank 1's own stop.
    r1.add(p2p(1, "Recv", 0, 11, 1 << 20, t + 1000 * US + OFFSET_1, 50 * US, true));
    r0.add(p2p(0, "Send", 1, 11, 1 << 20, t + 990 * US, 30 * US, true));
    // 3. Sizes differ: a record missing on one side would shift the pairing.
    r0.add(p2p(0, "Recv", 1, 12, 1 << 20, t + 2000 * US, 10 * US, true));
    r1.add(p2p(1, "Send", 0, 12, 4 << 20, t + 2000 * US + OFFSET_1, 10 * US, true));
    // 4. The receive is CPU-timed.
    r0.add(p2p(0, "Recv", 1, 13, 1 << 20, t + 3000 * US, 10 * US, false));
    r1.add(p2p(1, "Send", 0, 13, 1 << 20, t + 3000 * US + OFFSET_1, 10 * US, true));
    // 5. No send in rank 1's log.
    r0.add(p2p(0, "Recv", 1, 14, 1 << 20, t + 4000 * US, 10 * US, true));
    // 6. Processes 102 and 103: nothing relates their clocks.
    String other = "0x00000000000000ef";
    List<String> r2 = List.of(p2p(other, 102, 0, "Recv", 1, 0, 1 << 20, t, 10 * US, true));
    List<String> r3 = List.of(p2p(other, 103, 1, "Send", 0, 0, 1 << 20, t, 10 * US, true));
    Path logs = Files.createDirectories(tmp.resolve("logs"));
    TestSupport.writeLines(logs.resolve("host-pid100.log"), r0);
    TestSupport.writeLines(logs.resolve("host-pid101.log"), r1);
    TestSupport.writeLines(logs.resolve("host-pid102.log"), r2);
    TestSupport.writeLines(logs.resolve("host-pid103.log"), r3);

    P2pCompletionResult c = TestSupport.report(tmp.resolve("out"), logs.toString()).data()
        .p2pCompletion();
    assertEquals(6, c.receives());
    assertEquals(2, c.measured());
    assertEquals(1, c.sizeMismatch());
    assertEquals(1, c.untimed());
    assertEquals(1, c.noPeerRecord());
    assertEquals(1, c.noClockOffset());
    P2pTransfer fromPeer = only(c, 0);
    assertEquals(1, fromPeer.peerLater());
    assertEquals(10, fromPeer.reportedP50Us(), 1e-9);
    assertEquals(200, fromPeer.completionP50Us(), 1e-9, "the peer's stop, offset removed");
    assertEquals(190, fromPeer.extensionP50Us(), 1e-9);
    P2pTransfer own = only(c, 1);
    assertEquals(0, own.peerLater());
    assertEquals(50, own.completionP50Us(), 1e-9);
    assertNull(own.extensionP50Us());

    // Taken as they are, the clocks put rank 1's stop 500 µs later.
    P2pCompletionResult raw = TestSupport.report(ReportOptions.builder(tmp.resolve("raw"))
        .inputs(logs.toString()).threads(TestSupport.THREADS).progress(false).clockSync(ClockSync.NONE).build())
        .data().p2pCompletion();
    assertEquals("none", raw.clockSync());
    assertEquals(3, raw.measured(), "with the clocks taken as they are, all can be related");
    assertEquals(700, only(raw, 0).completionP50Us(), 1e-9);
  }

  @Test
  void withoutThePeersLogNothingIsMeasuredAndTheReportSaysWhy() throws Exception {
    Path logs = Files.createDirectories(tmp.resolve("logs"));
    TestSupport.writeLines(logs.resolve("host-pid100.log"),
        List.of(p2p(0, "Recv", 1, 0, 1 << 20, T0, 10 * US, true)));
    P2pCompletionResult c = TestSupport.report(tmp.resolve("out"), logs.toString()).data()
        .p2pCompletion();
    assertEquals(1, c.receives());
    assertEquals(0, c.measured());
    assertEquals(1, c.noPeerRecord());
    assertTrue(c.notes().get(0).contains("logs of both ranks"), c.notes().toString());
  }

  private static P2pTransfer only(P2pCompletionResult c, int rank) {
    List<P2pTransfer> rows = c.transfers().stream()
        .filter(t -> t.commId().equals(PIPELINE) && t.rank() == rank).toList();
    assertEquals(1, rows.size(), c.transfers().toString());
    return rows.get(0);
  }

  private static ObjectNode line(String comm, int rank, int pid) {
    ObjectNode n = JSON.createObjectNode();
    n.putObject("header").put("id", comm).put("comm_name", comm.endsWith("ab") ? "world" : "pp")
        .put("rank", rank)
        .put("n_ranks", 2).put("nnodes", 1);
    n.putObject("metadata").put("inspector_output_format_version", "v4.0")
        .put("hostname", "host").put("pid", pid).put("dump_timestamp_us", 1_800_000_000_000_000L);
    return n;
  }

  private static String coll(int rank, long sn, long start, long span) {
    ObjectNode n = line(WORLD, rank, 100 + rank);
    n.putObject("coll_perf").put("coll", "AllReduce").put("coll_sn", sn)
        .put("coll_msg_size_bytes", 1 << 20).put("coll_exec_time_us", span / US)
        .put("coll_exec_time_ns", span).put("coll_timing_source", "kernel_gpu")
        .put("coll_algobw_gbs", 1.0).put("coll_busbw_gbs", 1.0).put("coll_gpu_start_ns", start)
        .put("coll_gpu_span_ns", span);
    return n.toString();
  }

  private static String p2p(int rank, String op, int peer, long sn, long bytes, long start,
      long span, boolean gpu) {
    return p2p(PIPELINE, 100 + rank, rank, op, peer, sn, bytes, start, span, gpu);
  }

  private static String p2p(String comm, int pid, int rank, String op, int peer, long sn,
      long bytes, long start, long span, boolean gpu) {
    ObjectNode n = line(comm, rank, pid);
    ObjectNode p = n.putObject("p2p_perf").put("p2p", op).put("p2p_sn", sn).put("p2p_peer", peer)
        .put("p2p_msg_size_bytes", bytes).put("p2p_exec_time_us", span / US)
        .put("p2p_exec_time_ns", span).put("p2p_timing_source", gpu ? "kernel_gpu" : "kernel_cpu")
        .put("p2p_algobw_gbs", 1.0).put("p2p_busbw_gbs", 1.0);
    if (gpu) {
      p.put("p2p_gpu_start_ns", start).put("p2p_gpu_span_ns", span);
    }
    p.putArray("p2p_flags").add("send_side_stop");
    return n.toString();
  }

  private static List<JsonNode> read(Path gz) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(new GZIPInputStream(
        Files.newInputStream(gz)), StandardCharsets.UTF_8))) {
      for (String l = r.readLine(); l != null; l = r.readLine()) {
        if (!l.isBlank()) {
          out.add(JSON.readTree(l));
        }
      }
    }
    return out;
  }
}
