package io.ncclinspector.internal;

import io.ncclinspector.jfr.JfrEvents;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.HangEvent;
import io.ncclinspector.nativecore.InspectorNative;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Looks at the native in-flight table every quarter of the hang timeout (at most every second)
 * and reports each operation in flight longer than the timeout once, to listeners. It aborts
 * nothing: it only tells.
 */
public final class HangWatchdog implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HangWatchdog.class);
  /* inflight_entry offsets (inflight_query.h). */
  private static final int SERIAL = 0, COMM_ID = 8, SEQ = 16, START_WALL = 24, AGE = 32, STEP = 40, PHASE = 48,
      KIND = 50, FUNC = 51, STARTED = 52, DONE = 53, STOPPED = 54, N_CHANNELS = 55, ENTRY = 64, MAX_ENTRIES = 256;
  private static final int REMEMBERED = 1 << 16;

  /** An operation: its communicator, kind, operation and sequence number identify it. */
  private record Key(long serial, int kind, int func, long seq) {}

  private final NativeCore core;
  private final CommunicatorRegistry communicators;
  private final ListenerDispatcher listeners;
  private final long timeoutNanos;
  private final long periodNanos;
  private final ByteBuffer buffer = ByteBuffer.allocateDirect(ENTRY * MAX_ENTRIES).order(ByteOrder.LITTLE_ENDIAN);
  private final Map<Key, Boolean> reported = new LinkedHashMap<>(256, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Key, Boolean> eldest) {
      return size() > REMEMBERED;
    }
  };
  private final Thread thread;
  private final JfrEvents jfr;
  private volatile boolean stopping;

  /** @param jfr where hangs also go as JFR events; null when JFR events are off */
  public HangWatchdog(NativeCore core, CommunicatorRegistry communicators, ListenerDispatcher listeners,
      Duration timeout, JfrEvents jfr) {
    this.core = core;
    this.jfr = jfr;
    this.communicators = communicators;
    this.listeners = listeners;
    this.timeoutNanos = timeout.toNanos();
    this.periodNanos = Math.max(Math.min(timeoutNanos / 4, Duration.ofSeconds(1).toNanos()), 1_000_000);
    this.thread = new Thread(this::run, "nccl-inspector-watchdog");
    this.thread.setDaemon(true);
    this.thread.start();
  }

  private void run() {
    while (!stopping) {
      LockSupport.parkNanos(periodNanos);
      if (stopping) {
        break;
      }
      try {
        check();
      } catch (RuntimeException e) {
        log.error("NCCL Inspector watchdog: check failed, continuing", e);
      }
    }
  }

  /** One look at the in-flight table; returns how many new suspected hangs were reported. */
  int check() {
    buffer.clear();
    int n = InspectorNative.inflight(timeoutNanos, buffer, MAX_ENTRIES);
    int reportedNow = 0;
    for (int i = 0; i < n; i++) {
      int o = i * ENTRY;
      Key key = new Key(buffer.getLong(o + SERIAL), buffer.get(o + KIND), buffer.get(o + FUNC),
          buffer.getLong(o + SEQ));
      if (reported.put(key, Boolean.TRUE) != null) {
        continue;
      }
      CommunicatorInfo comm = communicators.lookup(key.serial(), buffer.getLong(o + COMM_ID));
      HangEvent event = new HangEvent(comm, core.name(NativeCore.TABLE_FUNC, Byte.toUnsignedInt(buffer.get(o + FUNC))),
          key.seq(), Instant.ofEpochSecond(0, buffer.getLong(o + START_WALL)), Duration.ofNanos(buffer.getLong(o + AGE)),
          Byte.toUnsignedInt(buffer.get(o + STARTED)), Byte.toUnsignedInt(buffer.get(o + DONE)),
          Byte.toUnsignedInt(buffer.get(o + N_CHANNELS)), buffer.get(o + STOPPED) != 0, buffer.getLong(o + STEP),
          PhaseNames.nameOf(Short.toUnsignedInt(buffer.getShort(o + PHASE))));
      log.warn("NCCL Inspector: {} #{} on communicator {} in flight for {} ms ({} of {} channels started, {} done)",
          event.operation(), event.sequence(), comm.idHex(), event.age().toMillis(), event.channelsStarted(),
          event.announcedChannels(), event.channelsDone());
      listeners.hang(event);
      if (jfr != null) {
        jfr.hang(event);
      }
      reportedNow++;
    }
    return reportedNow;
  }

  @Override
  public void close() {
    stopping = true;
    LockSupport.unpark(thread);
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
