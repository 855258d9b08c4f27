package io.ncclinspector.examples.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The programs' option parsing and plans, as the driver script calls them (what a --dry-run checks). */
class PlanTest {
  static String[] common(String... more) {
    String[] base = {"--rank", "0", "--ranks", "2", "--id-file", "/tmp/id", "--out", "/tmp/out"};
    String[] all = new String[base.length + more.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return all;
  }

  @Test
  void reproducerPlan() {
    DesyncReproducer.Options o = DesyncReproducer.Options.parse(common("--cupti"));
    assertTrue(o.common().cupti());
    assertTrue(o.common().syncRanks());
    List<DesyncReproducer.Step> plan = DesyncReproducer.plan(o);
    assertEquals(7 + 140 + 1 + 140, plan.size());
    assertEquals(7, plan.stream().filter(s -> !s.timed()).count());
    assertEquals(Operation.ALL_TO_ALL, plan.get(7 + 140).op());
    assertEquals(64L << 20, DesyncReproducer.bufferBytes(plan));
    assertEquals(287 + 4, DesyncReproducer.expectedRecords(plan, 2));
    assertEquals(287 + 8, DesyncReproducer.expectedRecords(plan, 4));
    /* the AllReduces after the AlltoAll are phase "after" */
    CallCounter c = new CallCounter(2);
    long after = plan.stream().map(s -> c.next(s.op())).filter(CallCounter.CallId::afterSelfP2p).count();
    assertEquals(140, after);
  }

  @Test
  void moePlan() {
    DesyncReproducer.Options o = DesyncReproducer.Options.parse(common("--mode", "moe", "--steps", "100"));
    List<DesyncReproducer.Step> plan = DesyncReproducer.plan(o);
    assertEquals(3 + 400, plan.size());
    assertEquals(100, plan.stream().filter(s -> s.op() == Operation.ALL_TO_ALL).count());
    /* warm-up AllReduce, AllGather, Send/Recv pair; then per step 1 + 4 (AlltoAll) + 1 + 2 */
    assertEquals(4 + 100 * (1 + 4 + 1 + 2), DesyncReproducer.expectedRecords(plan, 2));
    assertThrows(IllegalArgumentException.class, () -> DesyncReproducer.Options.parse(common("--ops", "AlltoAll")));
    assertThrows(IllegalArgumentException.class, () -> DesyncReproducer.Options.parse(common("--mode", "moe",
        "--moe-sizes", "1M")));
    assertThrows(IllegalArgumentException.class, () -> DesyncReproducer.Options.parse(common("--mode", "x")));
    assertThrows(IllegalArgumentException.class, () -> DesyncReproducer.Options.parse(common("--cylces", "3")));
  }

  @Test
  void benchmarkOptions() {
    NcclBenchmark.Options o = NcclBenchmark.Options.parse(common("--inspector", "off", "--min-bytes", "8",
        "--max-bytes", "1G", "--factor", "4", "--warmup", "3", "--iters", "10", "--batch", "20", "--no-sync"));
    assertFalse(o.common().inspector());
    assertFalse(o.common().syncRanks());
    assertEquals(15, o.sizes().size());
    assertEquals(6L * 15 * 33, o.calls());
    NcclBenchmark.Options t = NcclBenchmark.Options.parse(common("--ops", "AllReduce,AlltoAll,AllReduce"));
    assertEquals(List.of(Operation.ALL_REDUCE, Operation.ALL_TO_ALL, Operation.ALL_REDUCE), t.ops());
    assertThrows(IllegalArgumentException.class, () -> NcclBenchmark.Options.parse(common("--inspector", "maybe")));
    assertThrows(IllegalArgumentException.class, () -> NcclBenchmark.Options.parse(common("--ops", "AllRedux")));
    assertThrows(IllegalArgumentException.class, () -> NcclBenchmark.Options.parse(common("--iters", "0")));
    assertThrows(IllegalArgumentException.class, () -> NcclBenchmark.Options.parse(new String[] {"--rank", "2",
        "--ranks", "2", "--id-file", "x", "--out", "y"}));
  }

  @Test
  void longRunOptions() {
    NcclLongRun.Options s = NcclLongRun.Options.parse(common("--mode", "stress", "--bytes", "8K", "--calls", "1000000",
        "--max-seconds", "75", "--latency"));
    assertEquals(8192, s.bytes());
    assertEquals(1_000_000, s.calls());
    assertTrue(s.latency());
    assertEquals(75.0, s.maxSeconds());
    assertTrue(s.describe().contains("1,000,000 AllReduces of 8 KiB"), s.describe());
    NcclLongRun.Options d = NcclLongRun.Options.parse(common("--mode", "detector"));
    assertEquals(Set.of(10L, 600L, 1500L), d.delayCalls());
    assertEquals(64 << 10, d.loopBytes());
    assertEquals("Simple", d.proto());
    NcclLongRun.Options g = NcclLongRun.Options.parse(common("--mode", "graph", "--graph-ops", "4", "--replays", "200"));
    assertTrue(g.describe().contains("808 records"), g.describe());
    assertThrows(IllegalArgumentException.class, () -> NcclLongRun.Options.parse(common("--mode", "graf")));
    assertThrows(IllegalArgumentException.class, () -> NcclLongRun.Options.parse(common("--replays", "0")));
  }

  @Test
  void sweepRowsUseOnlyReportedRecords() {
    NcclBenchmark.Options o = NcclBenchmark.Options.parse(common("--min-bytes", "1M", "--max-bytes", "1M",
        "--iters", "3", "--batch", "20", "--ops", "AllReduce"));
    CallCounter c = new CallCounter(2);
    java.util.List<CallReport.CallSample> samples = new java.util.ArrayList<>();
    java.util.Map<Long, List<RecordView>> ours = new java.util.HashMap<>();
    double[] event = {20, 22, 21};
    for (int i = 0; i < 3; i++) {
      CallCounter.CallId id = c.next(Operation.ALL_REDUCE);
      samples.add(new CallReport.CallSample(id, "pass0", 1 << 20, i, CallReportTest.timing(event[i], 1000L * i)));
      ours.put(id.call(), List.of(i == 1 ? CallReportTest.rec("AllReduce", id.call(), 0, "NONE", "KERNEL_CHANNEL_DESYNC")
          : CallReportTest.rec("AllReduce", id.call(), 15 + i, "KERNEL_GPU", "NONE")));
    }
    List<CallReport.CallRow> rows = CallReport.join("sweep", "on", 0, samples, ours, null, null,
        CallReport.Tolerance.DEFAULT);
    CallTimer.Timing batch = new CallTimer.Timing(20 * 16_000, 0, 0, 0, 0, 0, 0);
    List<NcclBenchmark.SweepRow> sweep = NcclBenchmark.sweepRows(o, rows, java.util.Map.of("0/1048576", batch));
    assertEquals(1, sweep.size());
    NcclBenchmark.SweepRow r = sweep.get(0);
    assertEquals(21.0, r.cudaEventMicros());
    assertEquals(2, r.inspectorReported());
    assertEquals(1, r.inspectorWithheld());
    assertEquals(16.0, r.inspectorMicros()); /* median of 15 and 17; the withheld record is not a 0 */
    assertEquals(16.0, r.batchMicrosPerCall());
    assertEquals((1 << 20) / 16e3, r.busBandwidthBatchGbs(), 1e-9); /* AllReduce, 2 ranks: factor 1 */
    assertTrue(NcclBenchmark.sweepTable(sweep).contains("AllReduce"));
  }
}
