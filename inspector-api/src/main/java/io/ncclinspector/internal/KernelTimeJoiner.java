package io.ncclinspector.internal;

import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.InspectorEvent;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.P2pRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.TimingSource;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Gives operation records that NCCL's kernel channels could not time completely the time of their
 * kernel from CUPTI's kernel records (native {@code kernel_records.h}), on the dump thread.
 *
 * <p>An operation record that names its launch and has no complete, trusted channel time (withheld,
 * quarantined, a lower bound, a CPU time) is held until the kernel record of its launch comes; the
 * two come in either order. A kernel that ran this operation alone (the launch started one
 * operation) times it; a kernel shared by several operations cannot say how long each took: a
 * point-to-point operation its channels gave no GPU time at all (an AlltoAll's send whose channels
 * lag) gets the kernel's time as its group's ({@link TimingSource#KERNEL_CUPTI_GROUP}, an upper
 * bound on its own), any other record goes on as it was. A record whose kernel record has not
 * come within {@code maxWait} goes on as it was too, and so does every held record at
 * {@link #releaseAll}; with GPU times required, one that leaves still untimed is dropped, counted. Memory is bounded:
 * at most {@code maxHeld} records and {@code maxSpans} early kernel records are kept; beyond, the
 * oldest record goes on as it was and the oldest kernel record is forgotten, both counted.
 *
 * <p>Held records come out later than those decoded after them: the output is in completion order
 * except for these.
 */
public final class KernelTimeJoiner {
  /** Outcomes, for the status and the log. */
  public record Counts(long timed, long groupTimed, long shared, long missing, long held) {}

  /**
   * Records that waited in vain before the status says that CUPTI hands over no kernel at all (a
   * client that registered its buffers after the inspector's takes them; a CUPTI that names no
   * launch).
   */
  public static final long SILENT_AFTER_MISSING = 32;

  /**
   * Collectives timed both ways, by their in-step channels and by their kernel alone: the kernel's
   * time minus the channels' (in step on H200, 2.8-3.6 µs: launch and teardown). A difference
   * beyond {@link #DISAGREE_NANOS} either way means one of the two clocks is not this kernel's.
   */
  public record CrossCheck(long compared, long minNanos, long maxNanos, long sumNanos, long disagreeing) {
    public double meanNanos() {
      return compared == 0 ? 0 : (double) sumNanos / compared;
    }
  }

  /**
   * Kernel minus channel time beyond which the two do not agree (10 µs: ten times launch overhead),
   * plus {@value #DRIFT_PPM} ppm of the kernel (clock drift).
   */
  public static final long DISAGREE_NANOS = 10_000;

  /**
   * How far NCCL's GPU timer and CUPTI's timestamps drift apart, in parts per million of the
   * kernel, beyond which they disagree: seen from −4.9 (a 954 ms kernel on s30_moe) to +18 (a
   * 1.51 s first AllReduce on an H100, 29.7 µs longer by CUPTI, 2.1 µs of it launch overhead).
   */
  public static final long DRIFT_PPM = 25;

  private record Held(long launchId, byte[] bytes, long sinceNanos, boolean groupable) {}

  private final RecordDecoder decoder;
  private final long maxWaitNanos;
  private final int maxHeld;
  private final int maxSpans;
  private final boolean requireGpuTime;
  /* Held records by launch, and all of them oldest first (for the wait bound). */
  private final Map<Long, List<Held>> heldByLaunch = new HashMap<>();
  private final LinkedHashSet<Held> heldInOrder = new LinkedHashSet<>();
  /* Kernel records that came before their operations' records, oldest first. */
  private final LinkedHashMap<Long, RecordDecoder.KernelSpan> spans = new LinkedHashMap<>();
  private final AtomicLong timed = new AtomicLong();
  private final AtomicLong groupTimed = new AtomicLong();
  private final AtomicLong shared = new AtomicLong();
  private final AtomicLong missing = new AtomicLong();
  private final AtomicLong droppedUntimed = new AtomicLong();
  private final AtomicLong kernelsReceived = new AtomicLong();
  /* Records that waited in vain since the last kernel record came. */
  private final AtomicLong missingSinceKernel = new AtomicLong();
  private volatile int heldNow;
  /* Channel times of collectives timed directly, waiting for their kernel (the cross-check). */
  private final LinkedHashMap<Long, Long> direct = new LinkedHashMap<>();
  private long compared;
  private long minDiff = Long.MAX_VALUE;
  private long maxDiff = Long.MIN_VALUE;
  private long sumDiff;
  private long disagreeing;

  /**
   * @param requireGpuTime {@code requireKernelTiming}: the native core passes records that name
   *     their launch even without a GPU time (their kernel may time them); one that comes out of
   *     here still without one (a kernel shared by collectives, none in time) is dropped, counted by
   *     {@link #droppedUntimed()} as the core counts its own ({@code no_gpu_timing})
   */
  public KernelTimeJoiner(RecordDecoder decoder, long maxWaitNanos, int maxHeld, int maxSpans,
      boolean requireGpuTime) {
    if (maxWaitNanos <= 0 || maxHeld <= 0 || maxSpans <= 0) {
      throw new IllegalArgumentException("bounds must be positive");
    }
    this.decoder = decoder;
    this.maxWaitNanos = maxWaitNanos;
    this.maxHeld = maxHeld;
    this.maxSpans = maxSpans;
    this.requireGpuTime = requireGpuTime;
  }

  /** A joiner that passes every record on, timed or not ({@code requireKernelTiming} off). */
  public KernelTimeJoiner(RecordDecoder decoder, long maxWaitNanos, int maxHeld, int maxSpans) {
    this(decoder, maxWaitNanos, maxHeld, maxSpans, false);
  }

  /** Records that came out without a GPU time and were dropped ({@code requireKernelTiming}). */
  public long droppedUntimed() {
    return droppedUntimed.get();
  }

  /** Whether a decoded record wants its kernel's time: it names its launch and lacks a complete one. */
  static boolean wantsKernelTime(InspectorEvent event, long launchId) {
    if (launchId == 0 || !(event instanceof OperationRecord op)) {
      return false;
    }
    return !(op.timing().trusted() && op.timing().source() == TimingSource.KERNEL_GPU
        && !op.executionTimeIsLowerBound());
  }

  /**
   * The record at {@code offset} of {@code buf}, decoded as {@code event}: returns true if it is
   * held (an operation whose kernel time may come), false if it goes on now as it is.
   */
  public boolean offer(InspectorEvent event, ByteBuffer buf, int offset, int bytes, long nowNanos,
      List<InspectorEvent> out) {
    if (!(event instanceof OperationRecord)) {
      return false;
    }
    long launchId = decoder.launchId(buf, offset);
    if (!wantsKernelTime(event, launchId)) {
      if (launchId != 0 && event instanceof CollectiveRecord c) {
        crossCheck(launchId, c.timing().executionNanos());
      }
      return false;
    }
    byte[] copy = new byte[bytes];
    buf.get(offset, copy);
    boolean groupable = groupable(event);
    RecordDecoder.KernelSpan span = spans.get(launchId);
    if (span != null) {
      emit(resolve(copy, span, groupable), out);
      return true;
    }
    Held h = new Held(launchId, copy, nowNanos, groupable);
    heldByLaunch.computeIfAbsent(launchId, k -> new ArrayList<>(1)).add(h);
    heldInOrder.add(h);
    while (heldInOrder.size() > maxHeld) {
      release(first(), out);
    }
    return true;
  }

  /** A kernel record came: the records of its launch go on, timed where it ran one operation. */
  public void kernel(RecordDecoder.KernelSpan span, List<InspectorEvent> out) {
    kernelsReceived.incrementAndGet();
    missingSinceKernel.set(0);
    List<Held> waiting = heldByLaunch.remove(span.launchId());
    if (waiting != null) {
      for (Held h : waiting) {
        heldInOrder.remove(h);
        emit(resolve(h.bytes(), span, h.groupable()), out);
      }
    }
    Long channels = direct.remove(span.launchId());
    if (channels != null && span.operations() == 1) {
      compare(span, channels);
    }
    /* Kept for records of the launch still to come (an operation that closes after its kernel
     * record was flushed: it waited for channel readings). */
    spans.put(span.launchId(), span);
    if (spans.size() > maxSpans) {
      Iterator<Long> oldest = spans.keySet().iterator();
      oldest.next();
      oldest.remove();
    }
  }

  /** Records held longer than the wait go on as they were. */
  public void expire(long nowNanos, List<InspectorEvent> out) {
    while (!heldInOrder.isEmpty() && nowNanos - first().sinceNanos() > maxWaitNanos) {
      release(first(), out);
    }
    heldNow = heldInOrder.size();
  }

  /** Every held record goes on as it was (the inspector closes). */
  public void releaseAll(List<InspectorEvent> out) {
    while (!heldInOrder.isEmpty()) {
      release(first(), out);
    }
    heldNow = 0;
  }

  /**
   * Why no kernel time can be expected, or null: no kernel record has come at all, or none since
   * an earlier one, while at least {@link #SILENT_AFTER_MISSING} records waited for one in vain.
   */
  public String silence() {
    long received = kernelsReceived.get();
    long waitedInVain = received == 0 ? missing.get() : missingSinceKernel.get();
    if (waitedInVain < SILENT_AFTER_MISSING) {
      return null;
    }
    if (received == 0) {
      return "CUPTI kernel records are on but CUPTI has handed over no kernel of NCCL's: " + waitedInVain
          + " records waited for one in vain (another CUPTI client registered after the inspector may take"
          + " the records, or this CUPTI does not name the launches)";
    }
    return "CUPTI stopped handing over kernel records after " + received + ": " + waitedInVain
        + " records waited for one in vain since (a CUPTI client that registered its buffers after the"
        + " inspector started, such as a profiler started during the run, takes the records)";
  }

  public int held() {
    return heldInOrder.size();
  }

  public synchronized CrossCheck crossCheck() {
    return new CrossCheck(compared, compared == 0 ? 0 : minDiff, compared == 0 ? 0 : maxDiff, sumDiff, disagreeing);
  }

  /* A collective its channels timed: compared with its kernel now, or when the kernel comes. */
  private void crossCheck(long launchId, long channelNanos) {
    RecordDecoder.KernelSpan span = spans.get(launchId);
    if (span != null) {
      if (span.operations() == 1) {
        compare(span, channelNanos);
      }
      return;
    }
    direct.put(launchId, channelNanos);
    if (direct.size() > maxSpans) {
      Iterator<Long> oldest = direct.keySet().iterator();
      oldest.next();
      oldest.remove();
    }
  }

  private synchronized void compare(RecordDecoder.KernelSpan span, long channelNanos) {
    long diff = span.durationNanos() - channelNanos;
    compared++;
    minDiff = Math.min(minDiff, diff);
    maxDiff = Math.max(maxDiff, diff);
    sumDiff += diff;
    /* Plus the drift of the GPU timer against CUPTI's clock over the kernel's run. */
    if (Math.abs(diff) > DISAGREE_NANOS + span.durationNanos() / 1_000_000 * DRIFT_PPM) {
      disagreeing++;
    }
  }

  /** Outcomes so far (read from any thread; {@code held} as of the dump thread's last drain). */
  public Counts counts() {
    return new Counts(timed.get(), groupTimed.get(), shared.get(), missing.get(), heldNow);
  }

  private Held first() {
    return heldInOrder.iterator().next();
  }

  private void release(Held h, List<InspectorEvent> out) {
    heldInOrder.remove(h);
    List<Held> same = heldByLaunch.get(h.launchId());
    if (same != null) {
      same.remove(h);
      if (same.isEmpty()) {
        heldByLaunch.remove(h.launchId());
      }
    }
    missing.incrementAndGet();
    missingSinceKernel.incrementAndGet();
    emit(decoder.decodeTimedByKernel(wrap(h.bytes()), 0, null), out);
  }

  /*
   * A record goes on, unless GPU times are required and it has none (not quarantined: quarantined
   * records always travel, as in the native core).
   */
  private void emit(InspectorEvent event, List<InspectorEvent> out) {
    if (requireGpuTime && event instanceof OperationRecord op && op.timing().quarantine() == Quarantine.NONE
        && !gpuTimed(op.timing().source())) {
      droppedUntimed.incrementAndGet();
      return;
    }
    out.add(event);
  }

  private static boolean gpuTimed(TimingSource source) {
    return source == TimingSource.KERNEL_GPU || source == TimingSource.KERNEL_CUPTI
        || source == TimingSource.KERNEL_CUPTI_GROUP;
  }

  /*
   * A point-to-point record without any GPU time of its own (withheld, quarantined, CPU-timed) may
   * take its shared kernel's time as its group's; one with a GPU time from its channels, even a
   * lower bound (a send-side stop), keeps it: a measurement of its own beats its group's.
   */
  private static boolean groupable(InspectorEvent event) {
    return event instanceof P2pRecord p
        && !(p.timing().trusted() && p.timing().source() == TimingSource.KERNEL_GPU);
  }

  private InspectorEvent resolve(byte[] bytes, RecordDecoder.KernelSpan span, boolean groupable) {
    if (span.durationNanos() > 0 && span.operations() == 1) {
      timed.incrementAndGet();
      return decoder.decodeTimedByKernel(wrap(bytes), 0, span);
    }
    if (span.durationNanos() > 0 && span.operations() > 1 && groupable) {
      groupTimed.incrementAndGet();
      return decoder.decodeTimedByKernel(wrap(bytes), 0, span, true);
    }
    shared.incrementAndGet();
    return decoder.decodeTimedByKernel(wrap(bytes), 0, null);
  }

  private static ByteBuffer wrap(byte[] bytes) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }
}
