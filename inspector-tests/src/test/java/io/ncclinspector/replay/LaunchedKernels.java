package io.ncclinspector.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A recording's kernel launches lined up with CUPTI's kernels of the same run: the trace's
 * KernelLaunch events in order, each with the operations its thread started after it, and the
 * CUPTI file's kernels, which began a launch or two in ({@code shift}: the launch that CUPTI's first
 * kernel is, found by the kernels' names).
 *
 * @param launchWalls each launch's wall time (ns), in launch order
 * @param launchOps each launch's operations, space-separated
 * @param launchOfCollective the launch of each collective, by "operation#sequence"
 * @param kernels CUPTI's kernels in order
 * @param shift launch i ran kernel i - shift
 */
record LaunchedKernels(List<Long> launchWalls, List<String> launchOps, Map<String, Integer> launchOfCollective,
    List<Kernel> kernels, int shift) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One kernel as CUPTI timed it. */
  record Kernel(String name, long startNanos, long durationNanos) {}

  static LaunchedKernels read(Path trace, Path cuptiFile) throws IOException {
    List<Long> launchWalls = new ArrayList<>();
    List<String> launchOps = new ArrayList<>();
    Map<String, Integer> launchOfCollective = new HashMap<>();
    Map<Long, Integer> lastLaunchOfThread = new HashMap<>();
    for (JsonNode e : ReferenceConformanceTest.readLines(trace)) {
      if (!"start".equals(e.path("ev").asText())) {
        continue;
      }
      String type = e.path("type").asText();
      long tid = e.path("tid").asLong();
      if (type.equals("KernelLaunch")) {
        lastLaunchOfThread.put(tid, launchWalls.size());
        launchWalls.add(e.get("wall").asLong());
        launchOps.add("");
      } else if ((type.equals("Coll") || type.equals("P2p")) && lastLaunchOfThread.containsKey(tid)) {
        int launch = lastLaunchOfThread.get(tid);
        launchOps.set(launch, launchOps.get(launch) + " " + e.get("func").asText());
        if (type.equals("Coll")) {
          launchOfCollective.put(e.get("func").asText() + "#" + e.get("seq").asLong(), launch);
        }
      }
    }
    List<Kernel> kernels = new ArrayList<>();
    for (String line : Files.readAllLines(cuptiFile)) {
      JsonNode k = JSON.readTree(line);
      kernels.add(new Kernel(k.get("name").asText(), Math.round(k.get("start_us").asDouble() * 1000),
          Math.round(k.get("dur_us").asDouble() * 1000)));
    }
    return new LaunchedKernels(launchWalls, launchOps, launchOfCollective, kernels, alignment(launchOps, kernels));
  }

  /** The kernel of a collective ("operation#sequence"), or null (launched before CUPTI recorded). */
  Kernel ofCollective(String key) {
    Integer launch = launchOfCollective.get(key);
    int k = launch == null ? -1 : launch - shift;
    return k >= 0 && k < kernels.size() ? kernels.get(k) : null;
  }

  /** The launch that CUPTI's first kernel is: the shift that makes the kernels' names agree. */
  private static int alignment(List<String> launchOps, List<Kernel> kernels) {
    for (int shift = 0; shift < 4; shift++) {
      boolean all = true;
      for (int i = 0; i < kernels.size() && all; i++) {
        int launch = i + shift;
        all = launch < launchOps.size() && namesAgree(kernels.get(i).name(), launchOps.get(launch));
      }
      if (all) {
        return shift;
      }
    }
    throw new AssertionError("CUPTI's kernels do not line up with the trace's launches");
  }

  private static boolean namesAgree(String kernel, String ops) {
    if (kernel.contains("SendRecv")) {
      return ops.contains("Send") || ops.contains("Recv");
    }
    String op = kernel.replaceFirst("^ncclDevKernel_", "").replaceFirst("_.*", "");
    return !ops.isBlank() && ops.trim().split(" ")[0].equals(op);
  }
}
