package io.ncclinspector.internal;

import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.HangEvent;
import io.ncclinspector.Tags;
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
 * nothing: it only tells. Its rounds are paced by a {@link Ticker}; the ages are the native core's.
 */
public final class HangWatchdog implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HangWatchdog.class);
  private static final int MAX_ENTRIES = 256;
  private static final int REMEMBERED = 1 << 16;

  /** An operation: its communicator, kind, operation and sequence number identify it. */
  private record Key(long serial, int kind, int func, long seq) {}

  private final NativeCore core;
  private final CommunicatorRegistry communicators;
  private final EventSink listeners;
  private final EventSink exporters;
  private final long timeoutNanos;
  private final long periodNanos;
  /** In-flight entries (inflight_query.h), laid out as the native library says. */
  private final RecordLayout l;
  private final ByteBuffer buffer;
  private final Map<Key, Boolean> reported = new LinkedHashMap<>(256, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Key, Boolean> eldest) {
      return size() > REMEMBERED;
    }
  };
  private final Ticker ticker;
  private final Thread thread;
  private volatile boolean stopping;

  /**
   * @param listeners where suspected hangs go to listeners
   * @param exporters where they go to exporters
   * @param ticker what the rounds wait on ({@link Ticker#SYSTEM})
   */
  public HangWatchdog(NativeCore core, CommunicatorRegistry communicators, EventSink listeners, EventSink exporters,
      Duration timeout, Ticker ticker) {
    this.ticker = ticker;
    this.core = core;
    this.l = core.layout();
    this.buffer = ByteBuffer.allocateDirect(l.inflightEntryBytes * MAX_ENTRIES).order(ByteOrder.LITTLE_ENDIAN);
    this.communicators = communicators;
    this.listeners = listeners;
    this.exporters = exporters;
    this.timeoutNanos = timeout.toNanos();
    this.periodNanos = Math.max(Math.min(timeoutNanos / 4, Duration.ofSeconds(1).toNanos()), 1_000_000);
    this.thread = new Thread(this::run, "nccl-inspector-watchdog");
    this.thread.setDaemon(true);
    this.thread.start();
  }

  private void run() {
    while (!stopping) {
      ticker.park(periodNanos);
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
      int o = i * l.inflightEntryBytes;
      Key key = new Key(buffer.getLong(o + l.inflightCommSerial), buffer.get(o + l.inflightKind),
          buffer.get(o + l.inflightFunc), buffer.getLong(o + l.inflightSeq));
      if (reported.put(key, Boolean.TRUE) != null) {
        continue;
      }
      CommunicatorInfo comm = communicators.lookup(key.serial(), buffer.getLong(o + l.inflightCommId));
      HangEvent event = new HangEvent(comm,
          core.name(NativeCore.TABLE_FUNC, Byte.toUnsignedInt(buffer.get(o + l.inflightFunc))),
          key.seq(), Instant.ofEpochSecond(0, buffer.getLong(o + l.inflightStartWallNs)),
          Duration.ofNanos(buffer.getLong(o + l.inflightAgeNs)),
          new HangEvent.Progress(Byte.toUnsignedInt(buffer.get(o + l.inflightNChannels)),
              Byte.toUnsignedInt(buffer.get(o + l.inflightChannelsStarted)),
              Byte.toUnsignedInt(buffer.get(o + l.inflightChannelsDone)), buffer.get(o + l.inflightStopped) != 0),
          new Tags(buffer.getLong(o + l.inflightStep),
              PhaseNames.nameOf(Short.toUnsignedInt(buffer.getShort(o + l.inflightPhase)))));
      log.warn("NCCL Inspector: {} #{} on communicator {} in flight for {} ms ({} of {} channels started, {} done)",
          event.operation(), event.sequence(), comm.idHex(), event.age().toMillis(), event.progress().channelsStarted(),
          event.progress().announcedChannels(), event.progress().channelsDone());
      listeners.accept(event);
      exporters.accept(event);
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
