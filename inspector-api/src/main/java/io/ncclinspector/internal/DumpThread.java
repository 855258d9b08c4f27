package io.ncclinspector.internal;

import io.ncclinspector.InspectorEvent;
import io.ncclinspector.Quarantine;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JVM thread that drains the native ring in batches, decodes the records and hands them to
 * the stages of the pipeline ({@link EventSink}s); it also runs the native sweep (in-flight expiry, wall-clock offset) and flushes the
 * sinks at the dump interval. Nothing here runs on NCCL's threads.
 *
 * <p>It drains without pause while records keep coming; when the ring is empty it naps 250 µs while
 * records came in the last ~2 ms, 1 ms otherwise. (Naps of 20 µs cost twice the dump thread's CPU per
 * record at 500k records/s, each drain handing a few records to every stage and waking its thread;
 * the default ring of about 87k records takes 175 ms to fill at that rate.)
 * A failure in one iteration is logged and the loop goes on: the thread only ends at
 * {@link #finish}, after a last drain that leaves nothing behind in the ring.
 */
public final class DumpThread {
  private static final Logger log = LoggerFactory.getLogger(DumpThread.class);
  /* Idle polling: short naps while records were flowing a moment ago (low delivery latency), long
     ones once it has been quiet for a while, longer still once quiet for about 100 ms (an idle job:
     each wake-up costs about 17 us of CPU on the development VM, 1.7 % of a core at 1,000 a
     second, bench/idle-cost). The ring holds far more than 10 ms of records at any rate NCCL
     reaches; the first records after a pause reach the listeners up to 10 ms later. */
  private static final long ACTIVE_PARK_NANOS = Duration.ofNanos(250_000).toNanos();
  private static final long IDLE_PARK_NANOS = Duration.ofMillis(1).toNanos();
  private static final long DEEP_IDLE_PARK_NANOS = Duration.ofMillis(10).toNanos();
  private static final int ACTIVE_POLLS = 8;
  private static final int DEEP_IDLE_POLLS = ACTIVE_POLLS + 100;
  private static final long SWEEP_INTERVAL_NANOS = Duration.ofMillis(100).toNanos();
  private static final int BUFFER_BYTES = 1 << 20;

  private final NativeCore core;
  private final RecordDecoder decoder;
  private final List<EventSink> sinks;
  private final TraceRecording recording; /* null unless raw event recording is on */
  private final KernelTimeJoiner joiner; /* null unless CUPTI kernel records are on */
  private final boolean kernelRecordsAsked;
  /** How often CUPTI's completed buffers are asked for while kernel records are on. */
  static final long KERNEL_FLUSH_INTERVAL_NANOS = Duration.ofMillis(50).toNanos();
  private final long flushIntervalNanos;
  private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private final Thread thread;
  private volatile boolean finishing;
  private volatile boolean flushRequested;
  private final AtomicLong requestedFlushes = new AtomicLong();

  public DumpThread(NativeCore core, RecordDecoder decoder, List<EventSink> sinks, Duration flushInterval,
      TraceRecording recording, KernelTimeJoiner joiner, boolean kernelRecordsAsked) {
    this.core = core;
    this.joiner = joiner;
    this.kernelRecordsAsked = kernelRecordsAsked;
    this.recording = recording;
    this.decoder = decoder;
    this.sinks = List.copyOf(sinks);
    this.flushIntervalNanos = Math.max(flushInterval.toNanos(), 0);
    this.thread = new Thread(this::run, "nccl-inspector-dump");
    this.thread.setDaemon(true);
  }

  /** The CUPTI kernel-records joiner, or null when they are off. */
  public KernelTimeJoiner kernelTimeJoiner() {
    return joiner;
  }

  public void start() {
    thread.start();
  }

  /** Operation records handed to the sinks so far (or held for their kernel's time). */
  public long recordsDelivered() {
    return decoder.operationsDecoded() - (joiner == null ? 0 : joiner.droppedUntimed());
  }

  /**
   * Flushes asked for with {@link #requestFlush} and made: the sinks were handed their
   * {@code flushNow} (an asynchronous sink makes it on its own thread, see {@link AsyncSink#flushesMade}).
   */
  public long requestedFlushesMade() {
    return requestedFlushes.get();
  }

  /** Asks for a drain and a flush of the sinks soon (without waiting). */
  public void requestFlush() {
    flushRequested = true;
    LockSupport.unpark(thread);
  }

  /**
   * Stops the thread after it has drained the ring empty, flushed and closed the sinks. Call
   * after the native core was closed (so nothing new arrives). Returns false if it did not end
   * within the timeout.
   */
  public boolean finish(Duration timeout) throws InterruptedException {
    finishing = true;
    LockSupport.unpark(thread);
    thread.join(Math.max(timeout.toMillis(), 1));
    return !thread.isAlive();
  }

  private void run() {
    long lastFlush = System.nanoTime();
    long lastSweep = lastFlush;
    long lastKernelFlush = lastFlush;
    int quietPolls = ACTIVE_POLLS;
    while (true) {
      boolean last = finishing;
      /* Taken once, before the drain: a request that comes during this iteration stays set for the
         next one, whose replay and drain then come after it. */
      boolean flushing = flushRequested;
      if (flushing) {
        flushRequested = false;
      }
      int drained = 0;
      try {
        if (flushing) {
          /* In the deferred mode the calls made before the request may still be in the core's
             logs: replayed now, their records are in this drain and the flush that follows. */
          core.replayLoggedCalls();
        }
        drained = drainOnce();
        if (recording != null) {
          drained += recording.drainOnce();
        }
        long now = System.nanoTime();
        if (joiner != null && now - lastKernelFlush >= KERNEL_FLUSH_INTERVAL_NANOS) {
          core.flushKernelRecords(); /* their kernels come in the next drain */
          lastKernelFlush = now;
        }
        if (now - lastSweep >= SWEEP_INTERVAL_NANOS) {
          core.sweep();
          lastSweep = now;
        }
        if (flushing) {
          flushSinks(true);
          requestedFlushes.incrementAndGet();
          lastFlush = now;
        } else if (now - lastFlush >= flushIntervalNanos) {
          flushSinks(false);
          lastFlush = now;
        }
      } catch (RuntimeException | Error e) {
        log.error("NCCL Inspector dump thread: iteration failed, continuing", e);
      }
      if (last && drained == 0) {
        break;
      }
      if (drained == 0) {
        quietPolls = Math.min(quietPolls + 1, DEEP_IDLE_POLLS);
        LockSupport.parkNanos(quietPolls < ACTIVE_POLLS ? ACTIVE_PARK_NANOS
            : quietPolls < DEEP_IDLE_POLLS ? IDLE_PARK_NANOS : DEEP_IDLE_PARK_NANOS);
      } else {
        quietPolls = 0;
      }
    }
    if (joiner != null) {
      joiner.releaseAll(batch); /* the core is closed: no kernel record is still to come */
      deliverBatch();
      KernelTimeJoiner.Counts c = joiner.counts();
      log.info("NCCL Inspector: CUPTI kernel records timed {} operations, and {} point-to-point operations as"
          + " their group's kernel; {} other ran in a kernel shared with others, {} got no kernel record in time",
          c.timed(), c.groupTimed(), c.shared(), c.missing());
      String silence = joiner.silence();
      if (silence != null) {
        log.warn("NCCL Inspector: {}", silence);
      }
      KernelTimeJoiner.CrossCheck x = joiner.crossCheck();
      if (x.compared() > 0) {
        log.info("NCCL Inspector: kernel records against channel times of {} collectives timed by both: kernel"
            + " minus channels {} / {} / {} ns (min / mean / max), {} beyond {} ns + {} ppm", x.compared(),
            x.minNanos(), Math.round(x.meanNanos()), x.maxNanos(), x.disagreeing(), KernelTimeJoiner.DISAGREE_NANOS,
            KernelTimeJoiner.DRIFT_PPM);
      }
    }
    if (joiner == null) { /* kernel records off or refused: say so where channels left many untimed */
      String advice = KernelRecordsAdvice.advice(
          core.counters().quarantined().getOrDefault(Quarantine.KERNEL_CHANNEL_DESYNC, 0L),
          decoder.operationsDecoded(), kernelRecordsAsked ? core.kernelRecordsReason() : null);
      if (advice != null) { /* advice, not a fault: the records say why each has no time */
        log.info("NCCL Inspector: {}", advice);
      }
    }
    flushSinks(false);
    if (recording != null) {
      recording.finish();
    }
    for (EventSink s : sinks) {
      try {
        s.close();
      } catch (RuntimeException e) {
        log.error("NCCL Inspector: closing a record sink failed", e);
      }
    }
  }

  /** The events of one drain, handed to each sink at once. */
  private final List<InspectorEvent> batch = new ArrayList<>();

  private int drainOnce() {
    buffer.clear();
    int bytes = core.drain(buffer);
    int offset = 0;
    long now = joiner == null ? 0 : System.nanoTime();
    while (offset < bytes) {
      int size = decoder.recordBytes(buffer, offset);
      if (joiner != null && decoder.isKernel(buffer, offset)) {
        joiner.kernel(decoder.decodeKernel(buffer, offset), batch);
      } else {
        InspectorEvent event = decoder.decode(buffer, offset);
        if (event != null && !(joiner != null && joiner.offer(event, buffer, offset, size, now, batch))) {
          batch.add(event);
        }
      }
      offset += size;
    }
    if (joiner != null) {
      joiner.expire(now, batch);
    }
    deliverBatch();
    return bytes;
  }

  private void deliverBatch() {
    if (!batch.isEmpty()) {
      for (EventSink s : sinks) {
        deliver(s, batch);
      }
      batch.clear();
    }
  }

  private static void deliver(EventSink s, List<InspectorEvent> events) {
    try {
      s.acceptAll(events);
    } catch (RuntimeException e) {
      log.error("NCCL Inspector: a record sink failed", e);
    }
  }

  private void flushSinks(boolean requested) {
    if (recording != null) {
      try {
        recording.flush();
      } catch (RuntimeException e) {
        log.error("NCCL Inspector: flushing the raw event recording failed", e);
      }
    }
    for (EventSink s : sinks) {
      try {
        if (requested) {
          s.flushNow();
        } else {
          s.flush();
        }
      } catch (RuntimeException e) {
        log.error("NCCL Inspector: flushing a record sink failed", e);
      }
    }
  }
}
