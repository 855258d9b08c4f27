package io.ncclinspector.internal;

import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.CommunicatorSelector;
import io.ncclinspector.HangEvent;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.ListenerRegistration;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.SlowCollectiveSummary;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fans events out to listener registrations: each has its own thread and bounded queue
 * ({@link AsyncSink}), so a slow or failing listener delays or loses only its own events. The
 * dump thread (records, communicators), the analysis thread (slow collectives and their summaries) and the watchdog
 * (hangs) only ever offer to queues.
 */
public final class ListenerDispatcher implements RecordSink {
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final CopyOnWriteArrayList<Registration> registrations = new CopyOnWriteArrayList<>();
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
    Registration r = new Registration(this, selector, listener, capacity, finishOnClose);
    if (announceLive) {
      for (CommunicatorInfo c : live.values()) {
        if (selector.matches(c)) {
          r.sink.offer(new CommunicatorEvent(true, c, 0));
        }
      }
    }
    registrations.add(r);
    return r;
  }

  public boolean hasListeners() {
    return !registrations.isEmpty();
  }

  @Override
  public void record(OperationRecord record) {
    for (Registration r : registrations) {
      if (r.selector.matches(record.communicator())) {
        r.sink.offer(record);
      }
    }
  }

  /** On the dump thread; ordered with {@link #add} (see {@link #live}). */
  @Override
  public synchronized void communicator(CommunicatorEvent event) {
    if (event.created()) {
      live.put(event.communicator().serial(), event.communicator());
    } else {
      live.remove(event.communicator().serial());
    }
    for (Registration r : registrations) {
      if (r.selector.matches(event.communicator())) {
        r.sink.offer(event);
      }
    }
  }

  public void slowCollective(SlowCollectiveEvent event) {
    for (Registration r : registrations) {
      if (r.selector.matches(event.record().communicator())) {
        r.sink.offer(event);
      }
    }
  }

  public void slowCollectivesSuppressed(SlowCollectiveSummary summary) {
    for (Registration r : registrations) {
      if (r.selector.matches(summary.communicator())) {
        r.sink.offer(summary);
      }
    }
  }

  public void hang(HangEvent event) {
    for (Registration r : registrations) {
      if (r.selector.matches(event.communicator())) {
        r.sink.offer(event);
      }
    }
  }

  /** Delivers what is queued to every listener, then stops their threads. */
  @Override
  public void close() {
    for (Registration r : registrations) {
      registrations.remove(r);
      r.sink.close();
    }
  }

  private static final class Registration implements ListenerRegistration {
    final ListenerDispatcher owner;
    final CommunicatorSelector selector;
    final AsyncSink sink;
    final boolean finishOnClose;

    Registration(ListenerDispatcher owner, CommunicatorSelector selector, InspectorListener listener, int capacity,
        boolean finishOnClose) {
      this.owner = owner;
      this.selector = selector;
      this.finishOnClose = finishOnClose;
      this.sink = new AsyncSink(new ListenerSink(listener), "nccl-inspector-listener-" + THREADS.incrementAndGet(),
          capacity);
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
      }
    }
  }

  /** Calls the listener's method for each kind of event. */
  private record ListenerSink(InspectorListener listener) implements RecordSink {
    @Override
    public void record(OperationRecord record) {
      listener.operationCompleted(record);
    }

    @Override
    public void communicator(CommunicatorEvent event) {
      if (event.created()) {
        listener.communicatorCreated(event.communicator());
      } else {
        listener.communicatorDestroyed(event.communicator());
      }
    }

    @Override
    public void other(Object event) {
      if (event instanceof SlowCollectiveEvent s) {
        listener.slowCollective(s);
      } else if (event instanceof SlowCollectiveSummary s) {
        listener.slowCollectivesSuppressed(s);
      } else if (event instanceof HangEvent h) {
        listener.hangSuspected(h);
      }
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
