package io.ncclinspector.examples.nccl;

import static org.bytedeco.cuda.global.cudart.cudaFree;
import static org.bytedeco.cuda.global.cudart.cudaGetDeviceCount;
import static org.bytedeco.cuda.global.cudart.cudaMalloc;
import static org.bytedeco.cuda.global.cudart.cudaMemset;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;
import static org.bytedeco.cuda.global.cudart.cudaStreamCreate;
import static org.bytedeco.cuda.global.cudart.cudaStreamDestroy;
import static org.bytedeco.cuda.global.nccl.ncclCommDestroy;
import static org.bytedeco.cuda.global.nccl.ncclCommFinalize;
import static org.bytedeco.cuda.global.nccl.ncclCommInitRank;
import static org.bytedeco.cuda.global.nccl.ncclCommInitRankConfig;
import static org.bytedeco.cuda.global.nccl.ncclGetVersion;

import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.EventCounters;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.ListenerRegistration;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.OperationRecord;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.cuda.nccl.ncclUniqueId;

/**
 * What every GPU program of the validation sets up, in the order that matters: CUPTI before the
 * CUDA context (optional), this inspector before NCCL's first communicator (mode {@code on}), the
 * device of the rank, a stream, the rendezvous, the cross-process barrier, the communicator and
 * device buffers. In mode {@code on} it keeps every record it hears of, by step tag, as
 * {@link RecordView}s. {@link #close} tears down in the safe order; in mode {@code reference} it
 * first gives NVIDIA's plugin time to write its last records (it loses what its dump thread has
 * not written when the communicator goes).
 */
final class NcclSession implements AutoCloseable {
  /** Options every program takes. */
  record Common(int rank, int ranks, Path idFile, Path out, boolean inspector, boolean cupti, boolean syncRanks,
      boolean dryRun) {
    static Common parse(Args a) {
      Common c = new Common(a.integer("rank", -1), a.integer("ranks", -1), Path.of(a.required("id-file")),
          Path.of(a.required("out")), parseInspector(a.string("inspector", "on")), a.flag("cupti"),
          !a.flag("no-sync"), a.flag("dry-run"));
      if (c.ranks < 1 || c.rank < 0 || c.rank >= c.ranks) {
        throw new IllegalArgumentException("need --rank R --ranks N with 0 <= R < N, got " + c.rank + "/" + c.ranks);
      }
      return c;
    }

    /** off: no plugin, or NVIDIA's when NCCL_PROFILER_PLUGIN names it (set by the launcher). */
    String mode() {
      return inspector ? "on" : (System.getenv("NCCL_PROFILER_PLUGIN") != null ? "reference" : "off");
    }

    private static boolean parseInspector(String s) {
      return switch (s) {
        case "on" -> true;
        case "off" -> false;
        default -> throw new IllegalArgumentException("--inspector on|off, got " + s);
      };
    }
  }

  /** Flags every program accepts (for {@link Args#parse}). */
  static final String[] COMMON_FLAGS = {"cupti", "no-sync", "dry-run"};

  final Common common;
  final String mode;
  final int ncclVersion;
  final NcclInspector inspector;
  final Cupti cupti;
  final CUstream_st stream = new CUstream_st();
  final ncclComm comm = new ncclComm();
  final Operation.Buffers buffers = new Operation.Buffers();
  final ShmBarrier barrier;
  final long bufferBytes;
  private final Map<Long, List<RecordView>> byStep = new ConcurrentHashMap<>();
  private ListenerRegistration registration;
  private final AtomicLong records = new AtomicLong();
  private boolean destroyed;

  /**
   * @param configure adjusts the inspector's configuration (mode on), starting from the environment
   *     with the output under {@code out/inspector} and every size tracked
   * @param keepRecords keep every record by step tag (for the per-call comparison)
   */
  NcclSession(Common c, long bufferBytes, UnaryOperator<InspectorConfig.Builder> configure, boolean keepRecords,
      PrintStream log) throws IOException, InterruptedException {
    this.common = c;
    this.mode = c.mode();
    this.bufferBytes = bufferBytes;
    Files.createDirectories(c.out());
    /* CUPTI_LATE=1: the program's CUPTI client registers after the inspector's kernel records did
     * (as a profiler started later would): it takes CUPTI's records over, and the inspector must
     * say that no kernel comes. */
    boolean cuptiLate = c.cupti() && "1".equals(System.getenv("CUPTI_LATE"));
    Cupti early = c.cupti() && !cuptiLate ? Cupti.start(log) : null;
    if (c.inspector()) {
      inspector = NcclInspector.enable(configure.apply(InspectorConfig.builder().fromEnvironment()
          .dumpDirectory(c.out().resolve("inspector")).minMessageBytes(0)).build());
      registration = inspector.addListener(new InspectorListener() {
        @Override
        public void operationCompleted(OperationRecord r) {
          records.incrementAndGet();
          if (keepRecords) {
            byStep.computeIfAbsent(r.tags().step(), k -> java.util.Collections.synchronizedList(new ArrayList<>()))
                .add(RecordView.of(r));
          }
        }

        @Override
        public void communicatorCreated(CommunicatorInfo ci) {
          if (c.rank() == 0) {
            log.printf("[rank %d] inspector: communicator %s rank %d/%d, CUDA device %d, profiler interface v%d%n",
                c.rank(), ci.idHex(), ci.rank(), ci.ranks(), ci.cudaDevice(), ci.profilerInterfaceVersion());
          }
        }
      });
    } else {
      inspector = null;
    }
    this.cupti = cuptiLate ? Cupti.start(log) : early;
    int[] devices = new int[1];
    Cuda.check(cudaGetDeviceCount(devices), "cudaGetDeviceCount");
    Cuda.check(cudaSetDevice(c.rank() % devices[0]), "cudaSetDevice");
    int[] version = new int[1];
    Cuda.nccl(ncclGetVersion(version), "ncclGetVersion");
    this.ncclVersion = version[0];
    Cuda.check(cudaStreamCreate(stream), "cudaStreamCreate");
    ncclUniqueId id = Rendezvous.meet(c.rank(), c.idFile());
    this.barrier = ShmBarrier.open(ShmBarrier.fileFor(c.idFile(), Rendezvous.token(id)), c.ranks(), Duration.ofSeconds(120));
    long t0 = System.nanoTime();
    if (NonBlocking.ON) {
      Cuda.nccl(ncclCommInitRankConfig(comm, c.ranks(), id, c.rank(), NonBlocking.config()), "ncclCommInitRankConfig");
      NonBlocking.await(comm, "ncclCommInitRankConfig", 120);
    } else {
      Cuda.nccl(ncclCommInitRank(comm, c.ranks(), id, c.rank()), "ncclCommInitRank");
    }
    if (c.rank() == 0) {
      log.printf("NCCL %d, %d ranks, %d GPU(s), mode %s, CUPTI %s, ranks synchronised before timed calls: %s, "
          + "communicator ready in %d ms%n", version[0], c.ranks(), devices[0], mode, cupti != null ? "on" : "off",
          c.syncRanks(), (System.nanoTime() - t0) / 1_000_000);
      if (NonBlocking.ON) {
        log.printf("communicator non-blocking (NONBLOCKING=1): each launch on a thread of NCCL's own%n");
      }
    }
    Cuda.check(cudaMalloc(buffers.send, bufferBytes), "cudaMalloc");
    Cuda.check(cudaMalloc(buffers.recv, bufferBytes), "cudaMalloc");
    Cuda.check(cudaMalloc(buffers.recv2, bufferBytes), "cudaMalloc");
    Cuda.check(cudaMemset(buffers.send, 1, bufferBytes), "cudaMemset");
    Cuda.check(cudaMemset(buffers.recv, 0, bufferBytes), "cudaMemset");
    Cuda.check(cudaMemset(buffers.recv2, 0, bufferBytes), "cudaMemset");
  }

  /** A timer on this session's stream; with the barrier when ranks are to be synchronised. */
  CallTimer timer() {
    return new CallTimer(stream, common.syncRanks() ? barrier : null, cupti);
  }

  /** Tags the calling thread's next NCCL calls with {@code call} (mode on). */
  void step(long call) {
    if (inspector != null) {
      inspector.step(call);
    }
  }

  void launch(Operation op, long bytes) {
    op.launch(buffers, bytes, common.ranks(), common.rank(), comm, stream);
    NonBlocking.await(comm, op.name, 60);
  }

  long recordsReceived() {
    return records.get();
  }

  Map<Long, List<RecordView>> recordsByStep() {
    return byStep;
  }

  /** Records the listener could not take (its queue was full). */
  long listenerDropped() {
    return registration == null ? 0 : registration.dropped();
  }

  /**
   * Waits until the inspector accounted for {@code expected} records (received from the native
   * core, or dropped there with a reason) and the listener has seen all it received; false when
   * that did not happen within {@code timeout}, or nothing changed for 3 s (the work is done by
   * then: whatever has not come will not).
   */
  boolean awaitRecords(long expected, Duration timeout) throws InterruptedException {
    return awaitRecords(inspector, registration, records::get, expected, timeout);
  }

  static boolean awaitRecords(NcclInspector inspector, ListenerRegistration registration, LongSupplier heard,
      long expected, Duration timeout) throws InterruptedException {
    if (inspector == null) {
      return true;
    }
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    long lastProgress = start;
    long last = -1;
    while (true) {
      long received = inspector.status().records().received();
      long accounted = received + nativeDrops(inspector.counters());
      long seen = heard.getAsLong() + registration.dropped();
      if (accounted >= expected && seen >= received) {
        return true;
      }
      long now = System.nanoTime();
      if (accounted + seen != last) {
        last = accounted + seen;
        lastProgress = now;
      }
      if (now > deadline || now - lastProgress > 3_000_000_000L) {
        return false;
      }
      Thread.sleep(10);
    }
  }

  /** Drops of the native core: all but the JVM side's own (records it received but could not write or analyse). */
  static long nativeDrops(EventCounters c) {
    long n = 0;
    for (Map.Entry<String, Long> e : c.drops().entrySet()) {
      String k = e.getKey();
      if (!k.endsWith("_backlog_full") && !k.equals("json_not_written") && !k.startsWith("prometheus_")) {
        n += e.getValue();
      }
    }
    return n;
  }

  /**
   * Destroys the communicator (after giving the reference plugin time for its last dump) and
   * returns what the reference wrote for this process (empty in other modes).
   */
  ReferenceOutput destroyCommunicator() throws IOException, InterruptedException {
    if (destroyed) {
      return ReferenceOutput.empty();
    }
    destroyed = true;
    if (mode.equals("reference")) {
      long intervalUs = parseLong(System.getenv("NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS"), 1_000_000);
      Thread.sleep(Math.max(1000, 3 * intervalUs / 1000));
    }
    if (NonBlocking.ON) {
      Cuda.nccl(ncclCommFinalize(comm), "ncclCommFinalize");
      NonBlocking.await(comm, "ncclCommFinalize", 60);
    }
    Cuda.nccl(ncclCommDestroy(comm), "ncclCommDestroy");
    if (mode.equals("reference")) {
      String dir = System.getenv("NCCL_INSPECTOR_DUMP_DIR");
      return ReferenceOutput.read(dir == null ? null : Path.of(dir), ProcessHandle.current().pid());
    }
    return ReferenceOutput.empty();
  }

  @Override
  public void close() throws IOException, InterruptedException {
    destroyCommunicator();
    cudaFree(buffers.send);
    cudaFree(buffers.recv);
    cudaFree(buffers.recv2);
    cudaStreamDestroy(stream);
    if (cupti != null) {
      cupti.close();
    }
    if (inspector != null) {
      inspector.close();
    }
    barrier.close();
  }

  static long parseLong(String s, long fallback) {
    try {
      return s == null ? fallback : Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }

  static PrintStream nullStream() {
    return new PrintStream(java.io.OutputStream.nullOutputStream());
  }
}
