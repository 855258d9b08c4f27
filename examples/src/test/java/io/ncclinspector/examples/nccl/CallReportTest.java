package io.ncclinspector.examples.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CallReportTest {
  private static final CallReport.Tolerance TOL = CallReport.Tolerance.DEFAULT;

  @TempDir
  Path dir;

  /** A record as the inspector would report it; times in microseconds. */
  static RecordView rec(String op, long step, double micros, String source, String quarantine, String... flags) {
    return rec(op, step, -1, micros, source, quarantine, flags);
  }

  static RecordView rec(String op, long step, int peer, double micros, String source, String quarantine,
      String... flags) {
    return new RecordView(op, step, peer, 1 << 20, Math.round(micros * 1000), micros > 0 ? (1 << 20) / (micros * 1e3) : 0,
        source, quarantine, List.of(flags), 0, 8, 8, step, "RING", "LL", 0, 0, 0);
  }

  static CallTimer.Timing timing(double eventMicros, long wallStart) {
    return new CallTimer.Timing(Math.round(eventMicros * 1000), 5000, Math.round(eventMicros * 1000) + 9000, wallStart,
        wallStart + 100_000, wallStart, wallStart + 100_000);
  }

  @Test
  void collectivesAreJudgedAgainstCupti() {
    Operation ar = Operation.ALL_REDUCE;
    assertEquals("ok", CallReport.judgeOurs(ar, 0, List.of(rec("AllReduce", 1, 12, "KERNEL_GPU", "NONE")), 15, true, TOL)
        .verdict());
    /* the previous 64 MiB AllReduce's time, delivered by a lagging channel */
    assertEquals("wrong", CallReport.judgeOurs(ar, 0, List.of(rec("AllReduce", 1, 231, "KERNEL_GPU", "NONE")), 15, true,
        TOL).verdict());
    /* longer than the kernel by more than 1 us */
    assertEquals("wrong", CallReport.judgeOurs(ar, 0, List.of(rec("AllReduce", 1, 16.5, "KERNEL_GPU", "NONE")), 15, true,
        TOL).verdict());
    /* a time from the in-step channels only, marked a lower bound: short of the kernel is what it says */
    CallReport.Judged bound = CallReport.judgeOurs(ar, 0,
        List.of(rec("AllReduce", 1, 5, "KERNEL_GPU", "NONE", CallReport.LOWER_BOUND_FLAG)), 15, true, TOL);
    assertEquals("bound", bound.verdict());
    assertEquals(5.0, bound.micros());
    /* ... but never longer than the kernel, nor another work item's time */
    assertEquals("wrong", CallReport.judgeOurs(ar, 0,
        List.of(rec("AllReduce", 1, 231, "KERNEL_GPU", "NONE", CallReport.LOWER_BOUND_FLAG)), 15, true, TOL).verdict());
    /* within the window it is simply right */
    assertEquals("ok", CallReport.judgeOurs(ar, 0,
        List.of(rec("AllReduce", 1, 12, "KERNEL_GPU", "NONE", CallReport.LOWER_BOUND_FLAG)), 15, true, TOL).verdict());
    /* short without the mark: wrong */
    assertEquals("wrong", CallReport.judgeOurs(ar, 0, List.of(rec("AllReduce", 1, 5, "KERNEL_GPU", "NONE")), 15, true,
        TOL).verdict());
    CallReport.Judged held = CallReport.judgeOurs(ar, 0,
        List.of(rec("AllReduce", 1, 0, "NONE", "KERNEL_CHANNEL_DESYNC", "QUARANTINED")), 15, true, TOL);
    assertEquals("withheld", held.verdict());
    assertNull(held.micros());
    assertTrue(held.detail().contains("KERNEL_CHANNEL_DESYNC"), held.detail());
    /* quarantined with a CPU fallback time: still withheld, the time is not a figure */
    assertEquals("withheld", CallReport.judgeOurs(ar, 0,
        List.of(rec("AllReduce", 1, 2500, "COLLECTIVE_CPU", "GPU_TIMESTAMP_STALE", "QUARANTINED")), 15, true, TOL)
        .verdict());
    assertEquals("cpu", CallReport.judgeOurs(ar, 0, List.of(rec("AllReduce", 1, 40, "COLLECTIVE_CPU", "NONE")), 15, true,
        TOL).verdict());
    assertEquals("missing", CallReport.judgeOurs(ar, 0, List.of(rec("AllGather", 1, 12, "KERNEL_GPU", "NONE")), 15, true,
        TOL).verdict());
    CallReport.Judged partial = CallReport.judgeOurs(ar, 0,
        List.of(rec("AllReduce", 1, 13, "KERNEL_GPU", "NONE", "DESYNC_CHANNELS_EXCLUDED")), 15, true, TOL);
    assertEquals("ok", partial.verdict());
    assertTrue(partial.detail().contains("DESYNC_CHANNELS_EXCLUDED"));
  }

  @Test
  void withoutCuptiTheCudaEventsAreALooserTruth() {
    Operation ar = Operation.ALL_REDUCE;
    assertEquals("ok", CallReport.judgeOurs(ar, 0, List.of(rec("AllReduce", 1, 12, "KERNEL_GPU", "NONE")), 30, false,
        TOL).verdict());
    assertEquals("wrong", CallReport.judgeOurs(ar, 0, List.of(rec("AllReduce", 1, 231, "KERNEL_GPU", "NONE")), 30, false,
        TOL).verdict());
  }

  @Test
  void pointToPointTimesAreLowerBounds() {
    List<RecordView> sendRecv = List.of(rec("Send", 1, 1, 8.7, "KERNEL_GPU", "NONE", "SEND_SIDE_STOP"),
        rec("Recv", 1, 1, 9.0, "KERNEL_GPU", "NONE", "SEND_SIDE_STOP"));
    CallReport.Judged j = CallReport.judgeOurs(Operation.SEND_RECV, 0, sendRecv, 13, true, TOL);
    assertEquals("ok", j.verdict());
    assertEquals(9.0, j.micros());
    assertTrue(j.detail().contains("send-side stop"));
    assertEquals("wrong", CallReport.judgeOurs(Operation.SEND_RECV, 0,
        List.of(rec("Send", 1, 1, 20, "KERNEL_GPU", "NONE")), 13, true, TOL).verdict());
    /* AlltoAll: the own rank's pair has no kernel and does not count */
    List<RecordView> a2a = List.of(rec("Send", 2, 0, 0, "COLLECTIVE_CPU", "NONE", "SELF_P2P"),
        rec("Recv", 2, 0, 0, "COLLECTIVE_CPU", "NONE", "SELF_P2P"), rec("Send", 2, 1, 10, "KERNEL_GPU", "NONE"),
        rec("Recv", 2, 1, 0, "NONE", "KERNEL_CHANNEL_DESYNC"));
    CallReport.Judged a = CallReport.judgeOurs(Operation.ALL_TO_ALL, 0, a2a, 20, true, TOL);
    assertEquals("ok", a.verdict());
    assertEquals(10.0, a.micros());
    assertTrue(a.detail().startsWith("1/2 withheld"), a.detail());
    assertEquals("withheld", CallReport.judgeOurs(Operation.ALL_TO_ALL, 0, a2a.subList(3, 4), 20, true, TOL).verdict());
  }

  @Test
  void referenceFiguresAreMatchedBySequenceOrByTime() {
    ReferenceOutput ref = ReferenceOutput.parse(List.of(
        refLine("coll", "AllReduce", 0, 14, "kernel_gpu", 0, -1),
        refLine("coll", "AllReduce", 1, 231, "kernel_gpu", 0, -1),
        refLine("p2p", "Send", 1, 12, "collective_cpu", 0, 1),
        refLine("p2p", "Recv", 2, 12, "collective_cpu", 0, 1),
        refLine("p2p", "Send", 3, 9, "kernel_gpu", 5_000_010, 1)), List.of());
    CallCounter c = new CallCounter(2);
    CallCounter.CallId a0 = c.next(Operation.ALL_REDUCE);
    CallCounter.CallId s = c.next(Operation.SEND_RECV);
    CallCounter.CallId a1 = c.next(Operation.ALL_REDUCE);
    List<CallReport.CallSample> samples = List.of(new CallReport.CallSample(a0, "x", 1 << 20, 0, timing(30, 1_000_000_000L)),
        new CallReport.CallSample(s, "x", 1 << 20, 0, timing(30, 3_000_000_000L)),
        new CallReport.CallSample(a1, "x", 1 << 20, 1, timing(30, 4_000_000_000L)));
    List<CallReport.CallRow> rows = CallReport.join("t", "reference", 0, samples, null, ref, null, TOL);
    assertEquals("off", rows.get(0).ours().verdict());
    assertEquals("ok", rows.get(0).reference().verdict()); /* 14 us against a 30 us CUDA-event interval */
    assertEquals(14.0, rows.get(0).reference().micros());
    assertEquals("cpu", rows.get(1).reference().verdict()); /* Send #1 and Recv #2: CPU times only */
    assertEquals(2, rows.get(1).reference().records().size());
    assertEquals("wrong", rows.get(2).reference().verdict());
    /* a verbose record is matched by its start time, whatever its number */
    assertEquals(1, ref.p2p(100, 2, 5_000_000_000L, 5_000_020_000L).size());
    assertEquals(0, ref.p2p(100, 2, 6_000_000_000L, 6_000_020_000L).size());
  }

  static String refLine(String kind, String op, long sn, long us, String source, long startUs, int peer) {
    String perf = "\"" + kind + "\":\"" + op + "\",\"" + kind + "_sn\":" + sn + ",\"" + kind + "_msg_size_bytes\":1048576,\""
        + kind + "_exec_time_us\":" + us + ",\"" + kind + "_timing_source\":\"" + source + "\""
        + (peer >= 0 ? ",\"p2p_peer\":" + peer : "")
        + (startUs > 0 ? ",\"event_trace_ts\":{\"" + kind + "_start_ts\":" + startUs + "}" : "");
    return "{\"header\":{\"id\":\"0xabc\",\"rank\":0},\"" + kind + "_perf\":{" + perf + "}}";
  }

  @Test
  void tablesNeverAverageWithheldRecordsInAsZero() {
    CallCounter c = new CallCounter(2);
    List<CallReport.CallSample> samples = new ArrayList<>();
    Map<Long, List<RecordView>> ours = new HashMap<>();
    for (int i = 0; i < 4; i++) {
      CallCounter.CallId id = c.next(Operation.ALL_REDUCE);
      samples.add(new CallReport.CallSample(id, "cycle", 32L << 20, i, timing(140, 1_000_000L * (i + 1))));
      ours.put(id.call(), List.of(i % 2 == 0 ? rec("AllReduce", id.call(), 135, "KERNEL_GPU", "NONE")
          : rec("AllReduce", id.call(), 0, "NONE", "KERNEL_CHANNEL_DESYNC")));
    }
    List<CallReport.CallRow> rows = CallReport.join("t", "on", 0, samples, ours, null, null, TOL);
    String table = CallReport.table(rows);
    assertTrue(table.contains("135.0"), table);
    assertTrue(!table.contains("67.5"), table);
    assertTrue(table.contains("2/0/0/2/0/0"), table);
    String perCall = CallReport.perCall(rows);
    assertTrue(perCall.contains("135.0 ok"), perCall);
    assertTrue(perCall.contains("withheld [KERNEL_CHANNEL_DESYNC NONE]"), perCall);
    String summary = CallReport.summary(rows);
    assertTrue(summary.contains("ours before collective"), summary);
    assertTrue(summary.contains("withheld     2"), summary);
  }

  @Test
  void rowsAreWrittenAsJsonLines() throws Exception {
    CallCounter c = new CallCounter(2);
    CallCounter.CallId id = c.next(Operation.ALL_REDUCE);
    List<CallReport.CallRow> rows = CallReport.join("reproducer", "on", 0,
        List.of(new CallReport.CallSample(id, "cycle", 8192, 0, timing(20, 1000))),
        Map.of(0L, List.of(rec("AllReduce", 0, 9, "KERNEL_GPU", "NONE"))), null,
        KernelWindows.assign(List.of(new KernelWindows.Window(0, 1000, 101_000)),
            List.of(new Cupti.Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 2000, 14_000, 0, 1, 1, 0))), TOL);
    Path f = dir.resolve("calls.jsonl");
    CallReport.writeJsonLines(f, rows);
    List<String> lines = Files.readAllLines(f);
    assertEquals(1, lines.size());
    JsonNode n = new ObjectMapper().readTree(lines.get(0));
    assertEquals("reproducer", n.get("run").asText());
    assertEquals("before", n.get("phase").asText());
    assertEquals(12.0, n.get("cuptiMicros").asDouble());
    assertEquals("cupti", n.get("truth").asText());
    assertEquals("ok", n.get("ours").get("verdict").asText());
    assertEquals("KERNEL_GPU", n.get("ours").get("records").get(0).get("timingSource").asText());
    assertEquals("off", n.get("reference").get("verdict").asText());
  }
}
