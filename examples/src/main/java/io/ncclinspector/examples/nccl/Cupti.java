package io.ncclinspector.examples.nccl;

import static org.bytedeco.cuda.global.cupti.CUPTI_ACTIVITY_FLAG_FLUSH_FORCED;
import static org.bytedeco.cuda.global.cupti.CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
import static org.bytedeco.cuda.global.cupti.CUPTI_ACTIVITY_KIND_KERNEL;
import static org.bytedeco.cuda.global.cupti.CUPTI_ERROR_MAX_LIMIT_REACHED;
import static org.bytedeco.cuda.global.cupti.CUPTI_SUCCESS;
import static org.bytedeco.cuda.global.cupti.cuptiActivityDisable;
import static org.bytedeco.cuda.global.cupti.cuptiActivityEnable;
import static org.bytedeco.cuda.global.cupti.cuptiActivityFlushAll;
import static org.bytedeco.cuda.global.cupti.cuptiActivityGetNextRecord;
import static org.bytedeco.cuda.global.cupti.cuptiActivityGetNumDroppedRecords;
import static org.bytedeco.cuda.global.cupti.cuptiActivityRegisterCallbacks;
import static org.bytedeco.cuda.global.cupti.cuptiGetResultString;
import static org.bytedeco.cuda.global.cupti.cuptiGetTimestamp;
import static org.bytedeco.cuda.global.cupti.cuptiGetVersion;
import static org.bytedeco.cuda.global.cupti.cuptiSubscribe;
import static org.bytedeco.cuda.global.cupti.cuptiUnsubscribe;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.cuda.cudart.CUctx_st;
import org.bytedeco.cuda.cupti.CUpti_Activity;
import org.bytedeco.cuda.cupti.CUpti_ActivityKernel12;
import org.bytedeco.cuda.cupti.CUpti_BuffersCallbackCompleteFunc;
import org.bytedeco.cuda.cupti.CUpti_BuffersCallbackRequestFunc;
import org.bytedeco.cuda.cupti.CUpti_Subscriber_st;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.javacpp.SizeTPointer;

/**
 * Kernel durations measured by CUPTI's Activity API: the clock independent of both NCCL's profiler
 * timestamps and the CUDA events around a call. Every kernel's start and end (GPU timestamps
 * normalised by CUPTI to its own host clock, {@link #now()}) arrive in buffers that CUPTI hands
 * back on its own thread; {@link #drain()} flushes and returns what came so far.
 *
 * <p>The JavaCPP presets are built against CUPTI 13.3 and bind its newest kernel record
 * ({@code CUpti_ActivityKernel12}); CUPTI 13.0 writes {@code CUpti_ActivityKernel10}. The fields
 * read here (kind, start, end, device, context, stream, correlation id, name, graph node and graph
 * id) sit at the same offsets in both (checked against CUDA 13.0's {@code cupti_activity.h}: 0, 16,
 * 24, 40, 44, 48, 92, 104, 144, 156), and {@link #layoutProblem()} re-checks that at run time.
 *
 * <p>Loading needs {@code libcupti.so.13} on {@code java.library.path} (with JavaCPP's
 * {@code pathsFirst}) or {@code LD_LIBRARY_PATH}. Without it {@link #start} says so once and returns
 * null: the programs then run without CUPTI figures.
 */
final class Cupti implements AutoCloseable {
  /** One kernel execution. Times are CUPTI timestamps (ns). */
  record Kernel(String name, long startNanos, long endNanos, int deviceId, int streamId, int correlationId,
      long graphNodeId) {
    long durationNanos() {
      return endNanos - startNanos;
    }

    boolean isNccl() {
      return name != null && name.contains("nccl");
    }
  }

  private static final long BUFFER_BYTES = 4L << 20;

  private final ConcurrentLinkedQueue<Kernel> arrived = new ConcurrentLinkedQueue<>();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong buffers = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  /* Held for as long as CUPTI may call them: JavaCPP frees a callback's thunk with its object. */
  private final Request request = new Request();
  private final Complete complete = new Complete();
  private final int version;
  private boolean closed;
  /* Held with CUPTI_SUBSCRIBE=1 (a profiling tool's subscription), else null. */
  private CUpti_Subscriber_st subscriber;

  private Cupti(int version) {
    this.version = version;
  }

  /**
   * Loads CUPTI and starts collecting kernel activity, or says why not (once, on {@code log}) and
   * returns null. Call before the first kernel of interest (ideally before the CUDA context).
   */
  static Cupti start(PrintStream log) {
    try {
      Loader.load(org.bytedeco.cuda.global.cupti.class);
      int[] v = new int[1];
      check(cuptiGetVersion(v), "cuptiGetVersion");
      String layout = layoutProblem();
      if (layout != null) {
        log.println("CUPTI: not used, " + layout);
        return null;
      }
      Cupti c = new Cupti(v[0]);
      if ("1".equals(System.getenv("CUPTI_SUBSCRIBE"))) {
        /* Behave as a profiling tool does (Nsight Systems, PyTorch's Kineto): hold CUPTI's one
         * subscriber slot as well, for the whole run. */
        c.subscriber = new CUpti_Subscriber_st();
        check(cuptiSubscribe(c.subscriber, null, null), "cuptiSubscribe");
        log.println("CUPTI: subscribed (CUPTI_SUBSCRIBE=1), as a profiling tool would");
      }
      check(cuptiActivityRegisterCallbacks(c.request, c.complete), "cuptiActivityRegisterCallbacks");
      check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityEnable(CONCURRENT_KERNEL)");
      log.println("CUPTI: API version " + v[0] + ", collecting kernel activity");
      return c;
    } catch (Throwable t) {
      /* UnsatisfiedLinkError (no libcupti), NoClassDefFoundError, or a CUPTI error: run without it. */
      log.println("CUPTI: not available, running without kernel durations (" + t + ")");
      return null;
    }
  }

  /** Null if the record fields read here are where CUDA 13.0's CUPTI writes them; else what differs. */
  static String layoutProblem() {
    String[] fields = {"kind", "start", "end", "deviceId", "contextId", "streamId", "correlationId", "name", "graphNodeId"};
    long[] expected = {0, 16, 24, 40, 44, 48, 92, 104, 144};
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < fields.length; i++) {
      long off = Loader.offsetof(CUpti_ActivityKernel12.class, fields[i]);
      if (off != expected[i]) {
        b.append(fields[i]).append(" at ").append(off).append(" (expected ").append(expected[i]).append(") ");
      }
    }
    return b.length() == 0 ? null : "kernel record layout differs: " + b.toString().trim();
  }

  int version() {
    return version;
  }

  /** CUPTI's current timestamp, in the clock of the kernel records (ns). */
  static long now() {
    long[] t = new long[1];
    check(cuptiGetTimestamp(t), "cuptiGetTimestamp");
    return t[0];
  }

  /**
   * Flushes CUPTI's buffers and returns the kernels that arrived since the last call, in start
   * order. Call after the work of interest has completed (stream synchronised).
   */
  List<Kernel> drain() {
    long before = buffers.get();
    check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    /* The flush hands buffers back through the completion callback, which may run on CUPTI's own
       thread: wait (2 s at most) until one came and nothing more arrives for 100 ms. */
    long deadline = System.nanoTime() + 2_000_000_000L;
    int lastSize = -1;
    while (System.nanoTime() < deadline) {
      int size = arrived.size();
      if (buffers.get() > before && size == lastSize) {
        break;
      }
      lastSize = size;
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    List<Kernel> out = new ArrayList<>();
    Kernel k;
    while ((k = arrived.poll()) != null) {
      out.add(k);
    }
    out.sort(Comparator.comparingLong(Kernel::startNanos));
    return out;
  }

  /** Records CUPTI reported as dropped (buffers full) plus buffers it could not parse. */
  long dropped() {
    return dropped.get() + errors.get();
  }

  long buffersCompleted() {
    return buffers.get();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (subscriber != null) {
      cuptiUnsubscribe(subscriber);
    }
  }

  static void check(int rc, String what) {
    if (rc != CUPTI_SUCCESS) {
      BytePointer msg = new BytePointer((Pointer) null);
      String text = "";
      if (cuptiGetResultString(rc, msg) == CUPTI_SUCCESS && !msg.isNull()) {
        text = " (" + msg.getString() + ")";
      }
      throw new IllegalStateException(what + " failed: CUPTI error " + rc + text);
    }
  }

  /** CUPTI asks for a buffer to fill: 4 MiB from malloc (8-byte aligned, as CUPTI requires). */
  private static final class Request extends CUpti_BuffersCallbackRequestFunc {
    @Override
    public void call(PointerPointer buffer, SizeTPointer size, SizeTPointer maxNumRecords) {
      Pointer p = Pointer.malloc(BUFFER_BYTES);
      if (p == null || p.isNull()) {
        buffer.put(0L, (Pointer) null);
        size.put(0L, 0L);
      } else {
        buffer.put(0L, p);
        size.put(0L, BUFFER_BYTES);
      }
      maxNumRecords.put(0L, 0L); /* as many as fit */
    }
  }

  /** CUPTI hands a filled buffer back (on its own thread, or in a flush): parse, then free it. */
  private final class Complete extends CUpti_BuffersCallbackCompleteFunc {
    @Override
    public void call(CUctx_st ctx, int streamId, BytePointer buffer, long size, long validSize) {
      try {
        buffers.incrementAndGet();
        if (validSize > 0) {
          PointerPointer record = new PointerPointer(1L);
          record.put(0L, (Pointer) null); /* NULL asks for the first record */
          int rc;
          while ((rc = cuptiActivityGetNextRecord(buffer, validSize, record)) == CUPTI_SUCCESS) {
            Pointer r = record.get(0L);
            int kind = new CUpti_Activity(r).kind();
            if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || kind == CUPTI_ACTIVITY_KIND_KERNEL) {
              CUpti_ActivityKernel12 k = new CUpti_ActivityKernel12(r);
              BytePointer name = k.name();
              arrived.add(new Kernel(name == null || name.isNull() ? null : name.getString(), k.start(), k.end(),
                  k.deviceId(), k.streamId(), k.correlationId(), k.graphNodeId()));
            }
          }
          record.close();
          if (rc != CUPTI_ERROR_MAX_LIMIT_REACHED) {
            errors.incrementAndGet();
          }
        }
        SizeTPointer n = new SizeTPointer(1L);
        if (cuptiActivityGetNumDroppedRecords(ctx, streamId, n) == CUPTI_SUCCESS) {
          dropped.addAndGet(n.get(0L));
        }
        n.close();
      } catch (Throwable t) {
        errors.incrementAndGet();
      } finally {
        if (buffer != null && !buffer.isNull()) {
          Pointer.free(buffer);
        }
      }
    }
  }
}
