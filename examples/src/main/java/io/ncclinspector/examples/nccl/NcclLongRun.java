package io.ncclinspector.examples.nccl;

import static org.bytedeco.cuda.global.cudart.cudaGetDeviceCount;
import static org.bytedeco.cuda.global.cudart.cudaGraphDestroy;
import static org.bytedeco.cuda.global.cudart.cudaGraphExecDestroy;
import static org.bytedeco.cuda.global.cudart.cudaGraphInstantiate;
import static org.bytedeco.cuda.global.cudart.cudaGraphLaunch;
import static org.bytedeco.cuda.global.cudart.cudaMalloc;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;
import static org.bytedeco.cuda.global.cudart.cudaStreamBeginCapture;
import static org.bytedeco.cuda.global.cudart.cudaStreamCaptureModeThreadLocal;
import static org.bytedeco.cuda.global.cudart.cudaStreamCreate;
import static org.bytedeco.cuda.global.cudart.cudaStreamEndCapture;
import static org.bytedeco.cuda.global.cudart.cudaStreamSynchronize;
import static org.bytedeco.cuda.global.nccl.ncclAllReduce;
import static org.bytedeco.cuda.global.nccl.ncclCommDestroy;
import static org.bytedeco.cuda.global.nccl.ncclCommInitRank;
import static org.bytedeco.cuda.global.nccl.ncclFloat32;
import static org.bytedeco.cuda.global.nccl.ncclSum;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.RecordFlag;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.cuda.cudart.CUgraphExec_st;
import org.bytedeco.cuda.cudart.CUgraph_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.javacpp.Pointer;

/**
 * Long runs of one communicator, for what a sweep does not show:
 * <ul>
 *   <li>{@code --mode stress}: {@code --calls} back-to-back AllReduces of {@code --bytes} (synchronised
 *       every 100 calls), sampling the process's resident memory as it goes; at the end every call
 *       must be accounted for as a record or a counted drop.
 *   <li>{@code --mode graph}: {@code --graph-ops} AllReduces captured into a CUDA graph, replayed
 *       {@code --replays} times; NCCL reports every replay, so there must be one record per
 *       operation per replay, each flagged {@code graph_launched}.
 * </ul>
 * One process per rank, as {@link NcclBenchmark} (same rendezvous and launcher options).
 */
public final class NcclLongRun {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    int rank = Integer.parseInt(a.get("rank"));
    int ranks = Integer.parseInt(a.get("ranks"));
    Path out = Path.of(a.get("out"));
    String mode = a.getOrDefault("mode", "stress");
    long bytes = Long.parseLong(a.getOrDefault("bytes", "8192"));
    Files.createDirectories(out);

    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().fromEnvironment()
        .dumpDirectory(out.resolve("inspector-" + mode)).jsonOutput(false).minMessageBytes(0).build());
    AtomicLong records = new AtomicLong();
    AtomicLong graphLaunched = new AtomicLong();
    inspector.addListener(new InspectorListener() {
      @Override
      public void operationCompleted(OperationRecord r) {
        records.incrementAndGet();
        if (r.flags().contains(RecordFlag.GRAPH_LAUNCHED)) {
          graphLaunched.incrementAndGet();
        }
      }
    });

    int[] devices = new int[1];
    Cuda.check(cudaGetDeviceCount(devices), "cudaGetDeviceCount");
    Cuda.check(cudaSetDevice(rank % devices[0]), "cudaSetDevice");
    CUstream_st stream = new CUstream_st();
    Cuda.check(cudaStreamCreate(stream), "cudaStreamCreate");
    ncclComm comm = new ncclComm();
    Cuda.nccl(ncclCommInitRank(comm, ranks, Rendezvous.meet(rank, Path.of(a.get("id-file"))), rank), "ncclCommInitRank");
    Pointer send = new Pointer();
    Pointer recv = new Pointer();
    Cuda.check(cudaMalloc(send, bytes), "cudaMalloc");
    Cuda.check(cudaMalloc(recv, bytes), "cudaMalloc");

    Map<String, Object> result = new LinkedHashMap<>();
    result.put("mode", mode);
    result.put("rank", rank);
    result.put("ranks", ranks);
    result.put("bytes", bytes);
    long expected;
    long t0 = System.nanoTime();
    if (mode.equals("graph")) {
      int ops = Integer.parseInt(a.getOrDefault("graph-ops", "4"));
      int replays = Integer.parseInt(a.getOrDefault("replays", "200"));
      CUgraph_st graph = new CUgraph_st();
      CUgraphExec_st exec = new CUgraphExec_st();
      Cuda.check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
      for (int k = 0; k < ops; k++) {
        Cuda.nccl(ncclAllReduce(send, recv, bytes / 4, ncclFloat32, ncclSum, comm, stream), "ncclAllReduce (capture)");
      }
      Cuda.check(cudaStreamEndCapture(stream, graph), "cudaStreamEndCapture");
      Cuda.check(cudaGraphInstantiate(exec, graph, 0L), "cudaGraphInstantiate");
      for (int r = 0; r < replays; r++) {
        Cuda.check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
        Cuda.check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      }
      /* The graph holds NCCL's persistent work: free it before the communicator. */
      Cuda.check(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
      Cuda.check(cudaGraphDestroy(graph), "cudaGraphDestroy");
      expected = (long) ops * replays;
      result.put("graphOps", ops);
      result.put("replays", replays);
    } else {
      long calls = Long.parseLong(a.getOrDefault("calls", "100000"));
      long every = Math.max(1, calls / 20);
      List<Map<String, Long>> memory = new ArrayList<>();
      for (long i = 0; i < calls; i++) {
        Cuda.nccl(ncclAllReduce(send, recv, bytes / 4, ncclFloat32, ncclSum, comm, stream), "ncclAllReduce");
        if (i % 100 == 99) {
          Cuda.check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        }
        if (i % every == 0 || i == calls - 1) {
          memory.add(Map.of("calls", i + 1, "rssKiB", residentKiB(), "records", records.get()));
        }
      }
      Cuda.check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      expected = calls;
      result.put("calls", calls);
      result.put("memory", memory);
    }
    result.put("runMillis", (System.nanoTime() - t0) / 1_000_000);
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (records.get() + inspector.counters().totalDrops() < expected && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    result.put("expected", expected);
    result.put("records", records.get());
    result.put("graphLaunchedRecords", graphLaunched.get());
    result.put("counters", inspector.counters());
    result.put("finalRssKiB", residentKiB());
    JSON.writeValue(out.resolve("longrun-" + mode + "-rank" + rank + ".json").toFile(), result);
    if (rank == 0) {
      System.out.printf("%s, %d ranks: expected %d records, got %d (graph_launched %d), drops %d %s, %d ms, RSS %d KiB%n",
          mode, ranks, expected, records.get(), graphLaunched.get(), inspector.counters().totalDrops(),
          inspector.counters().drops().entrySet().stream().filter(e -> e.getValue() > 0).toList(),
          result.get("runMillis"), residentKiB());
      if (result.get("memory") instanceof List<?> m) {
        System.out.println("memory: " + m);
      }
    }
    Cuda.nccl(ncclCommDestroy(comm), "ncclCommDestroy");
    inspector.close();
  }

  /** VmRSS of this process, from /proc/self/status. */
  static long residentKiB() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }
}
