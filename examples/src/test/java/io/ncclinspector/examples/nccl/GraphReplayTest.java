package io.ncclinspector.examples.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GraphReplayTest {
  static RecordView graphRecord(long startWall, double micros, String quarantine) {
    return new RecordView("AllReduce", 0, -1, 1 << 20, Math.round(micros * 1000), 0,
        quarantine.equals("NONE") ? "KERNEL_GPU" : "NONE", quarantine, List.of("GRAPH_LAUNCHED"), 0, 8, 8, -1, "RING",
        "SIMPLE", 0, startWall, 0);
  }

  static List<CallTimer.Timing> replays(int n) {
    List<CallTimer.Timing> t = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      long w = 1_000_000L * (r + 10);
      t.add(new CallTimer.Timing(80_000, 2000, 90_000, w, w + 90_000, w, w + 90_000));
    }
    return t;
  }

  @Test
  @SuppressWarnings("unchecked")
  void recordsGoToTheReplayWhoseWindowHoldsTheirStart() {
    int ops = 2;
    List<RecordView> records = new ArrayList<>();
    records.add(graphRecord(1_000, 10, "NONE")); /* warm-up replay: before every window */
    for (int r = 0; r < 3; r++) {
      long w = 1_000_000L * (r + 10);
      records.add(graphRecord(w + 20_000, 12 + r, "NONE"));
      records.add(graphRecord(w + 40_000, 13, r == 1 ? "KERNEL_CHANNEL_DESYNC" : "NONE"));
    }
    List<Cupti.Kernel> kernels = new ArrayList<>();
    for (int r = 0; r < 3; r++) {
      long w = 1_000_000L * (r + 10);
      kernels.add(new Cupti.Kernel("ncclDevKernel_AllReduce", w + 25_000, w + 40_000, 0, 1, 1, 7));
      kernels.add(new Cupti.Kernel("ncclDevKernel_AllReduce", w + 45_000, w + 61_000, 0, 1, 1, 8));
    }
    Map<String, Object> result = new HashMap<>();
    List<Map<String, Object>> rows = NcclLongRun.graphReplays(ops, 1, replays(3), records, kernels, result);
    assertEquals("wall-window", result.get("recordsMatchedBy"));
    assertEquals(3, rows.size());
    assertEquals(2, rows.get(0).get("records"));
    assertEquals(List.of(15.0, 16.0), rows.get(0).get("cuptiMicros"));
    assertEquals(12.0, ((List<Double>) rows.get(0).get("inspectorMicros")).get(0));
    assertNull(((List<Double>) rows.get(1).get("inspectorMicros")).get(1));
    assertEquals(1L, rows.get(1).get("withheld"));
    List<Map<String, Object>> summary = NcclLongRun.graphSummary(ops, rows);
    assertEquals(15.0, summary.get(0).get("cuptiMedianMicros"));
    assertEquals(13.0, summary.get(0).get("inspectorMedianMicros"));
    assertEquals(2, summary.get(1).get("inspectorTimed")); /* the withheld one is not a 0 */
    assertEquals(3L, summary.get(2).get("replaysWithOneRecordPerOp"));
  }

  @Test
  void withoutUsableStartTimesRecordsAreTakenInOrder() {
    List<RecordView> records = new ArrayList<>();
    for (int i = 0; i < 2 + 6; i++) {
      records.add(graphRecord(i, 10 + i, "NONE")); /* start times before every window */
    }
    Map<String, Object> result = new HashMap<>();
    List<Map<String, Object>> rows = NcclLongRun.graphReplays(2, 1, replays(3), records, null, result);
    assertEquals("order", result.get("recordsMatchedBy"));
    assertEquals(List.of(12.0, 13.0), rows.get(0).get("inspectorMicros"));
    assertEquals(List.of(16.0, 17.0), rows.get(2).get("inspectorMicros"));
  }
}
