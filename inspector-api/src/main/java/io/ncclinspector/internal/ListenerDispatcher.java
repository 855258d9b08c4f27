package io.ncclinspector.internal;

import io.ncclinspector.CommunicatorEvent;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.CommunicatorSelector;
import io.ncclinspector.HangEvent;
import io.ncclinspector.InspectorEvent;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.ListenerRegistration;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.SlowCollectiveSummary;
import io.ncclinspector.spi.InspectorExporter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Fans events out to listener registrations: each has its own thread and bounded queue
 * ({@link AsyncSink}), so a slow or failing listener delays or loses only its own events. The
 * dump thread (records, communicators), the analysis thread (slow collectives and their summaries)
 * and the watchdog (hangs) only ever offer to queues.
 */
public final class ListenerDispatcher implements EventSink {
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final CopyOnWriteArrayList<Registration> registrations = new CopyOnWriteArrayList<>();
  private final Duration closeTimeout;
  private final AtomicLong abandoned = new AtomicLong();
  private volatile Thread closer;

  /**
   * @param closeTimeout how long closing waits for listeners to finish what is queued (all of
   *     them together at close, each at its removal); a listener still busy then is abandoned
   */
  public ListenerDispatcher(Duration closeTimeout) {
    this.closeTimeout = closeTimeout;
  }

  /** Listeners abandoned so far: still busy when their close timeout ran out. */
  public long abandoned() {
    return abandoned.get();
  }

  /**
   * Names the thread that is closing the inspector: if it is a listener's (close() called from a
   * callback), nobody waits for that listener, which could not finish while it waits itself.
   */
  public void closingFrom(Thread thread) {
    closer = thread;
  }
  /**
   * The communicators live as far as the events dispatched so far say. Guarded by {@code this}
   * together with the dispatch of communicator events, so that a registration hears of every
   * communicator exactly once: either as already live, or by its creation event, never both.
   */
  private final Map<Long, CommunicatorInfo> live = new LinkedHashMap<>();

  /**
   * Registers a listener. With {@code announceLive} it first hears of the communicators already
   * live. With {@code finishOnClose}, closing the registration delivers what is queued (and closes
   * the listener if it is {@link AutoCloseable}); otherwise what is queued is dropped.
   */
  public synchronized ListenerRegistration add(CommunicatorSelector selector, InspectorListener listener,
      boolean announceLive, boolean finishOnClose, int capacity) {
    Registration r = new Registration(this, selector, listener, capacity, finishOnClose, closeTimeout);
    if (announceLive) {
      for (CommunicatorInfo c : live.values()) {
        if (selector.matches(c)) {
          r.sink.accept(new CommunicatorEvent(CommunicatorEvent.Change.CREATED, c));
        }
      }
    }
    registrations.add(r);
    return r;
  }

  /**
   * Offers an event to every registration whose selector matches its communicator. Called by the
   * dump thread (records, communicators), the analysis thread (slow collectives the rate limit let
   * through, summaries) and the watchdog (hangs). Communicator events are ordered with
   * {@link #add} (see {@link #live}).
   */
  @Override
  public void accept(InspectorEvent event) {
    if (event instanceof CommunicatorEvent) {
      communicator(event);
    } else {
      offer(event);
    }
  }

  private synchronized void communicator(InspectorEvent event) {
    event.deliverTo(liveTracker);
    offer(event);
  }

  private void offer(InspectorEvent event) {
    for (Registration r : registrations) {
      if (r.selector.matches(event.communicator())) {
        r.sink.accept(event);
      }
    }
  }

  /** Keeps {@link #live} (under the dispatcher's lock: called from {@link #communicator}). */
  private final InspectorListener liveTracker = new InspectorListener() {
    @Override
    public void communicatorCreated(CommunicatorInfo c) {
      live.put(c.serial(), c);
    }

    @Override
    public void communicatorDestroyed(CommunicatorInfo c) {
      live.remove(c.serial());
    }
  };

  /**
   * Delivers what is queued to every listener, then stops their threads: all are asked at once
   * and waited for together, at most the close timeout; those still busy then are abandoned.
   */
  @Override
  public void close() {
    long deadline = System.nanoTime() + closeTimeout.toNanos();
    List<Registration> all = new ArrayList<>(registrations);
    registrations.removeAll(all);
    Thread closing = closer;
    for (Registration r : all) {
      r.sink.closeRequestedFrom(closing);
      r.sink.requestClose(false);
    }
    for (Registration r : all) {
      if (!r.sink.awaitClosed(deadline)) {
        abandoned.incrementAndGet();
      }
    }
  }

  private static final class Registration implements ListenerRegistration {
    final ListenerDispatcher owner;
    final CommunicatorSelector selector;
    final AsyncSink sink;
    final boolean finishOnClose;

    Registration(ListenerDispatcher owner, CommunicatorSelector selector, InspectorListener listener, int capacity,
        boolean finishOnClose, Duration closeTimeout) {
      this.owner = owner;
      this.selector = selector;
      this.finishOnClose = finishOnClose;
      this.sink = new AsyncSink(new ListenerSink(listener), "nccl-inspector-listener-" + THREADS.incrementAndGet(),
          capacity, closeTimeout);
    }

    @Override
    public boolean abandoned() {
      return sink.abandoned();
    }

    @Override
    public long dropped() {
      return sink.dropped();
    }

    @Override
    public long delivered() {
      return sink.delivered();
    }

    @Override
    public void close() {
      if (owner.registrations.remove(this)) {
        if (finishOnClose) {
          sink.close();
        } else {
          sink.discard();
        }
        if (sink.abandoned()) {
          owner.abandoned.incrementAndGet();
        }
      }
    }
  }

  /** A listener as a sink of its registration's thread: flushed and closed if it can be. */
  private record ListenerSink(InspectorListener listener) implements InspectorExporter {
    @Override
    public void communicatorCreated(CommunicatorInfo communicator) {
      listener.communicatorCreated(communicator);
    }

    @Override
    public void communicatorDestroyed(CommunicatorInfo communicator) {
      listener.communicatorDestroyed(communicator);
    }

    @Override
    public void operationCompleted(OperationRecord record) {
      listener.operationCompleted(record);
    }

    @Override
    public void slowCollective(SlowCollectiveEvent event) {
      listener.slowCollective(event);
    }

    @Override
    public void slowCollectivesSuppressed(SlowCollectiveSummary summary) {
      listener.slowCollectivesSuppressed(summary);
    }

    @Override
    public void hangSuspected(HangEvent event) {
      listener.hangSuspected(event);
    }

    @Override
    public void flush() {
      if (listener instanceof java.io.Flushable f) {
        try {
          f.flush();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    }

    @Override
    public void close() {
      if (listener instanceof AutoCloseable c) {
        try {
          c.close();
        } catch (Exception e) {
          throw new IllegalStateException("closing listener " + listener + " failed", e);
        }
      }
    }
  }
}
