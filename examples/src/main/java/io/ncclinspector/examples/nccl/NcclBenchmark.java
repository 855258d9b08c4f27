package io.ncclinspector.examples.nccl;

import static org.bytedeco.cuda.global.cudart.cudaEventCreate;
import static org.bytedeco.cuda.global.cudart.cudaEventElapsedTime;
import static org.bytedeco.cuda.global.cudart.cudaEventRecord;
import static org.bytedeco.cuda.global.cudart.cudaEventSynchronize;
import static org.bytedeco.cuda.global.cudart.cudaGetDeviceCount;
import static org.bytedeco.cuda.global.cudart.cudaMalloc;
import static org.bytedeco.cuda.global.cudart.cudaMemset;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;
import static org.bytedeco.cuda.global.cudart.cudaStreamCreate;
import static org.bytedeco.cuda.global.cudart.cudaStreamSynchronize;
import static org.bytedeco.cuda.global.nccl.ncclCommDestroy;
import static org.bytedeco.cuda.global.nccl.ncclCommInitRank;
import static org.bytedeco.cuda.global.nccl.ncclGetVersion;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.InspectorSnapshot;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.PrometheusTextfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.cuda.nccl.ncclUniqueId;

/**
 * An NCCL benchmark in Java through the JavaCPP CUDA presets, with the inspector enabled in
 * process: AllReduce, AllGather, ReduceScatter, Broadcast, AlltoAll and Send/Recv over a range of
 * sizes. Each timed call is bracketed by CUDA events on its stream, an independent clock against
 * which the inspector's GPU-timed execution time of the same call (matched by NCCL's sequence
 * number) is compared. Rank 0 prints a live table from a listener while it runs, and at the end a
 * comparison table and the inspector's snapshot; every rank writes its samples as JSON.
 *
 * <p>One process per rank. Ranks meet through a file holding NCCL's unique id (written by rank 0).
 * On a one-GPU machine give each process its own host identity (see examples/nccl-benchmark.sh).
 *
 * <pre>
 * java ... NcclBenchmark --rank R --ranks N --id-file F --out DIR [--inspector on|off]
 *     [--ops AllReduce,AllGather,...] [--min-bytes 8192] [--max-bytes 33554432] [--factor 4]
 *     [--warmup 5] [--iters 20]
 * </pre>
 */
public final class NcclBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /**
   * One timed call. {@code call} numbers every call of the run (warm-up ones too); with the
   * inspector on it is also the step tag of the call's records ({@link NcclInspector#step}), which
   * is how records are matched to calls.
   */
  record Sample(String operation, long sizeBytes, int iteration, long call, long cudaEventNanos,
      long enqueueNanos, long wallNanos) {}

  /** One row of the final table: medians over the timed calls of an operation and size. */
  record Row(String operation, long sizeBytes, int calls, int matched, double cudaEventMicros,
      double inspectorExecMicros, double medianDifferenceMicros, double exampleBusBandwidthGbs,
      double inspectorBusBandwidthGbs, double enqueueMicros, double wallMicros) {}

  record Options(int rank, int ranks, Path idFile, Path out, boolean inspector, List<Operation> ops,
      long minBytes, long maxBytes, int factor, int warmup, int iters) {

    static Options parse(String[] args) {
      Map<String, String> a = new HashMap<>();
      for (int i = 0; i + 1 < args.length; i += 2) {
        if (!args[i].startsWith("--")) {
          throw new IllegalArgumentException("expected --option value, got " + args[i]);
        }
        a.put(args[i].substring(2), args[i + 1]);
      }
      List<Operation> ops = new ArrayList<>();
      for (String s : a.getOrDefault("ops", "AllReduce,AllGather,ReduceScatter,Broadcast,AlltoAll,SendRecv").split(",")) {
        ops.add(Operation.byName(s.trim()));
      }
      return new Options(Integer.parseInt(req(a, "rank")), Integer.parseInt(req(a, "ranks")), Path.of(req(a, "id-file")),
          Path.of(req(a, "out")), !"off".equals(a.getOrDefault("inspector", "on")), ops,
          Long.parseLong(a.getOrDefault("min-bytes", "8192")), Long.parseLong(a.getOrDefault("max-bytes", "33554432")),
          Integer.parseInt(a.getOrDefault("factor", "4")), Integer.parseInt(a.getOrDefault("warmup", "5")),
          Integer.parseInt(a.getOrDefault("iters", "20")));
    }

    private static String req(Map<String, String> a, String k) {
      String v = a.get(k);
      if (v == null) {
        throw new IllegalArgumentException("missing --" + k);
      }
      return v;
    }
  }

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    Files.createDirectories(o.out());
    String mode = o.inspector() ? "on" : (System.getenv("NCCL_PROFILER_PLUGIN") != null ? "reference" : "off");
    NcclInspector inspector = null;
    ConcurrentLinkedQueue<OperationRecord> records = new ConcurrentLinkedQueue<>();
    LiveTable live = new LiveTable();
    if (o.inspector()) {
      inspector = NcclInspector.enable(InspectorConfig.builder().fromEnvironment()
          .dumpDirectory(o.out().resolve("inspector")).minMessageBytes(0)
          .prometheus(PrometheusTextfile.every(Duration.ofSeconds(30)).withRemoveFilesOnClose(false)).build());
      inspector.addListener(new InspectorListener() {
        @Override
        public void operationCompleted(OperationRecord r) {
          records.add(r);
          live.add(r);
        }

        @Override
        public void communicatorCreated(CommunicatorInfo c) {
          System.out.printf("[rank %d] inspector: communicator %s rank %d/%d, CUDA device %d, %s, profiler interface v%d%n",
              o.rank(), c.idHex(), c.rank(), c.ranks(), c.cudaDevice(), c.gpuUuid(), c.profilerInterfaceVersion());
        }
      });
    }

    int[] devices = new int[1];
    Cuda.check(cudaGetDeviceCount(devices), "cudaGetDeviceCount");
    Cuda.check(cudaSetDevice(o.rank() % devices[0]), "cudaSetDevice");
    int[] version = new int[1];
    Cuda.nccl(ncclGetVersion(version), "ncclGetVersion");
    CUstream_st stream = new CUstream_st();
    Cuda.check(cudaStreamCreate(stream), "cudaStreamCreate");
    ncclUniqueId id = Rendezvous.meet(o.rank(), o.idFile());
    ncclComm comm = new ncclComm();
    long t0 = System.nanoTime();
    Cuda.nccl(ncclCommInitRank(comm, o.ranks(), id, o.rank()), "ncclCommInitRank");
    if (o.rank() == 0) {
      System.out.printf("NCCL %d, %d ranks, %d GPU(s), inspector %s, communicator ready in %d ms%n", version[0], o.ranks(),
          devices[0], mode, (System.nanoTime() - t0) / 1_000_000);
    }

    Operation.Buffers buffers = new Operation.Buffers();
    long bufferBytes = o.maxBytes();
    Cuda.check(cudaMalloc(buffers.send, bufferBytes), "cudaMalloc");
    Cuda.check(cudaMalloc(buffers.recv, bufferBytes), "cudaMalloc");
    Cuda.check(cudaMemset(buffers.send, 1, bufferBytes), "cudaMemset");
    CUevent_st start = new CUevent_st();
    CUevent_st stop = new CUevent_st();
    Cuda.check(cudaEventCreate(start), "cudaEventCreate");
    Cuda.check(cudaEventCreate(stop), "cudaEventCreate");

    Thread printer = null;
    if (o.rank() == 0 && o.inspector()) {
      printer = new Thread(() -> {
        while (!Thread.currentThread().isInterrupted()) {
          try {
            Thread.sleep(2000);
          } catch (InterruptedException e) {
            return;
          }
          System.out.println(live.render());
        }
      }, "live-table");
      printer.setDaemon(true);
      printer.start();
    }

    List<Sample> samples = new ArrayList<>();
    long collectiveCalls = 0;
    long p2pCalls = 0;
    long call = 0;
    float[] ms = new float[1];
    long runStart = System.nanoTime();
    for (Operation op : o.ops()) {
      for (long size = o.minBytes(); size <= o.maxBytes(); size *= o.factor()) {
        for (int w = 0; w < o.warmup(); w++) {
          if (inspector != null) {
            inspector.step(call);
          }
          call++;
          op.launch(buffers, size, o.ranks(), o.rank(), comm, stream);
          Cuda.check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
          if (op.collective) {
            collectiveCalls++;
          } else {
            p2pCalls++;
          }
        }
        for (int i = 0; i < o.iters(); i++) {
          if (inspector != null) {
            inspector.step(call);
          }
          long a = System.nanoTime();
          Cuda.check(cudaEventRecord(start, stream), "cudaEventRecord");
          op.launch(buffers, size, o.ranks(), o.rank(), comm, stream);
          long b = System.nanoTime();
          Cuda.check(cudaEventRecord(stop, stream), "cudaEventRecord");
          Cuda.check(cudaEventSynchronize(stop), "cudaEventSynchronize");
          long c = System.nanoTime();
          Cuda.check(cudaEventElapsedTime(ms, start, stop), "cudaEventElapsedTime");
          if (op.collective) {
            collectiveCalls++;
          } else {
            p2pCalls++;
          }
          samples.add(new Sample(op.name, size, i, call++, Math.round(ms[0] * 1e6), b - a, c - a));
        }
      }
    }
    long runNanos = System.nanoTime() - runStart;
    if (printer != null) {
      printer.interrupt();
    }

    /* A Send and a Recv per SendRecv call; NCCL 2.28 runs AlltoAll as one Send and one Recv per
       peer (the own rank's pair has no kernel and is not kept with REQUIRE_KERNEL_TIMING=1). */
    long alltoallCalls = o.ops().contains(Operation.ALL_TO_ALL) ? collectiveCalls / Math.max(1, o.ops().stream()
        .filter(x -> x.collective).count()) : 0;
    long expected = collectiveCalls - alltoallCalls + alltoallCalls * 2L * (o.ranks() - 1) + 2 * p2pCalls;
    if (inspector != null) {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (records.size() < expected && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
    }
    List<Row> rows = rows(o, samples, new ArrayList<>(records));
    Map<String, Object> result = new HashMap<>();
    result.put("mode", mode);
    result.put("rank", o.rank());
    result.put("ranks", o.ranks());
    result.put("ncclVersion", version[0]);
    result.put("runMillis", runNanos / 1_000_000);
    result.put("calls", collectiveCalls + p2pCalls);
    result.put("recordsExpected", inspector != null ? expected : 0);
    result.put("recordsReceived", records.size());
    result.put("rows", rows);
    result.put("samples", samples);
    if (inspector != null) {
      InspectorSnapshot snap = inspector.snapshot();
      result.put("counters", snap.counters());
      inspector.flush();
      Thread.sleep(500);
      result.put("prometheusFiles", inspector.prometheusFiles().stream().map(Path::toString).sorted().toList());
      result.put("outputFile", inspector.outputFile().map(Path::toString).orElse(""));
    }
    Path file = o.out().resolve("results-" + mode + "-rank" + o.rank() + ".json");
    JSON.writeValue(file.toFile(), result);

    if (o.rank() == 0) {
      System.out.printf("%nrank 0, inspector %s: %d calls in %.1f s; records %d of %d expected%n", mode,
          collectiveCalls + p2pCalls, runNanos / 1e9, records.size(), inspector != null ? expected : 0);
      System.out.println(table(rows, inspector != null));
      if (inspector != null) {
        InspectorSnapshot snap = inspector.snapshot();
        System.out.println("inspector snapshot: " + snap.totalOperations() + " operations, drops "
            + snap.counters().totalDrops() + " " + nonZero(snap.counters().drops()) + ", prometheus files "
            + inspector.prometheusFiles());
      }
    }
    Cuda.nccl(ncclCommDestroy(comm), "ncclCommDestroy");
    if (inspector != null) {
      inspector.close();
    }
  }

  private static Map<String, Long> nonZero(Map<String, Long> m) {
    Map<String, Long> out = new HashMap<>();
    m.forEach((k, v) -> {
      if (v > 0) {
        out.put(k, v);
      }
    });
    return out;
  }

  /**
   * Matches records to calls by their step tag (the call number) and summarises. A collective's
   * record is the one of its name; an AlltoAll that NCCL ran as Send/Recv pairs is timed by the
   * longest of them; a SendRecv by its Send.
   */
  static List<Row> rows(Options o, List<Sample> samples, List<OperationRecord> records) {
    Map<Long, List<OperationRecord>> byCall = new HashMap<>();
    for (OperationRecord r : records) {
      byCall.computeIfAbsent(r.step(), k -> new ArrayList<>()).add(r);
    }
    Map<String, List<Sample>> groups = new java.util.LinkedHashMap<>();
    for (Sample s : samples) {
      groups.computeIfAbsent(s.operation() + "/" + s.sizeBytes(), k -> new ArrayList<>()).add(s);
    }
    List<Row> rows = new ArrayList<>();
    for (List<Sample> g : groups.values()) {
      Sample first = g.get(0);
      Operation op = Operation.byName(first.operation());
      List<Double> event = new ArrayList<>();
      List<Double> exec = new ArrayList<>();
      List<Double> diff = new ArrayList<>();
      List<Double> busbw = new ArrayList<>();
      List<Double> enqueue = new ArrayList<>();
      List<Double> wall = new ArrayList<>();
      for (Sample s : g) {
        event.add(s.cudaEventNanos() / 1e3);
        enqueue.add(s.enqueueNanos() / 1e3);
        wall.add(s.wallNanos() / 1e3);
        List<OperationRecord> rs = byCall.getOrDefault(s.call(), List.of());
        OperationRecord named = rs.stream().filter(r -> r.operation().equals(op == Operation.SEND_RECV ? "Send" : op.name))
            .findFirst().orElse(null);
        long execNanos;
        double bw;
        if (named != null) {
          execNanos = named.executionNanos();
          bw = named.busBandwidthGbs();
        } else if (op == Operation.ALL_TO_ALL && !rs.isEmpty()) {
          execNanos = rs.stream().mapToLong(OperationRecord::executionNanos).max().orElse(0);
          bw = Double.NaN; /* its parts are point-to-point: no AlltoAll bus bandwidth to compare */
        } else {
          continue;
        }
        exec.add(execNanos / 1e3);
        diff.add((s.cudaEventNanos() - execNanos) / 1e3);
        busbw.add(bw);
      }
      double eventMedian = median(event);
      double exampleBusBw = eventMedian > 0 ? first.sizeBytes() / (eventMedian * 1e3) * op.busFactor(o.ranks()) : 0;
      rows.add(new Row(first.operation(), first.sizeBytes(), g.size(), exec.size(), eventMedian, median(exec),
          median(diff), exampleBusBw, median(busbw), median(enqueue), median(wall)));
    }
    return rows;
  }

  static double median(List<Double> v) {
    if (v.isEmpty()) {
      return Double.NaN;
    }
    double[] a = v.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(a);
    return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
  }

  static String table(List<Row> rows, boolean inspector) {
    StringBuilder b = new StringBuilder();
    b.append(String.format("%-14s %10s %6s %12s %12s %10s %10s %10s %10s %10s%n", "operation", "bytes", "match",
        "cudaEvt_us", "insp_us", "diff_us", "busbw_ex", "busbw_in", "enq_us", "wall_us"));
    for (Row r : rows) {
      b.append(String.format("%-14s %10d %3d/%-2d %12.1f %12.1f %10.1f %10.3f %10.3f %10.1f %10.1f%n", r.operation(),
          r.sizeBytes(), r.matched(), r.calls(), r.cudaEventMicros(), inspector ? r.inspectorExecMicros() : Double.NaN,
          r.medianDifferenceMicros(), r.exampleBusBandwidthGbs(), r.inspectorBusBandwidthGbs(), r.enqueueMicros(),
          r.wallMicros()));
    }
    return b.toString();
  }

  /** What the listener has seen so far, by operation and size. */
  static final class LiveTable {
    private final Map<String, LongAdder[]> cells = new ConcurrentHashMap<>();

    void add(OperationRecord r) {
      LongAdder[] c = cells.computeIfAbsent(r.operation() + " " + r.messageBytes(),
          k -> new LongAdder[] {new LongAdder(), new LongAdder(), new LongAdder()});
      c[0].increment();
      c[1].add(r.executionNanos());
      c[2].add(Math.round(r.busBandwidthGbs() * 1000));
    }

    String render() {
      StringBuilder b = new StringBuilder("live (listener):");
      cells.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
        long n = e.getValue()[0].sum();
        b.append(String.format(" | %s n=%d %.0fus %.3fGB/s", e.getKey(), n, e.getValue()[1].sum() / 1e3 / n,
            e.getValue()[2].sum() / 1e3 / n));
      });
      return b.toString();
    }
  }
}
