package io.ncclinspector.internal;

import io.ncclinspector.OperationRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a sink on its own thread behind a bounded queue, so that a slow consumer (a file write
 * blocked by the kernel's dirty-page throttling, a slow listener) never stops the dump thread from
 * draining the native ring. When the queue is full the item is dropped and counted; nothing
 * blocks. Items other than records and communicator events go to {@link RecordSink#other}.
 */
public final class AsyncSink implements RecordSink {
  private static final Logger log = LoggerFactory.getLogger(AsyncSink.class);
  private static final Object FLUSH = new Object();
  private static final Object FLUSH_REQUESTED = new Object();
  private static final Object CLOSE = new Object();

  private final RecordSink delegate;
  private final BlockingQueue<Object> queue;
  private final Thread thread;
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong delivered = new AtomicLong();
  private volatile boolean discarding;

  public AsyncSink(RecordSink delegate, String threadName, int capacity) {
    this.delegate = delegate;
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.thread = new Thread(this::run, threadName);
    this.thread.setDaemon(true);
    this.thread.start();
  }

  /** Items dropped because the queue was full. */
  public long dropped() {
    return dropped.get();
  }

  /** Items handed to the delegate. */
  public long delivered() {
    return delivered.get();
  }

  /** Queues any item; never blocks. */
  public void offer(Object item) {
    if (!discarding && !queue.offer(item)) {
      dropped.incrementAndGet();
    }
  }

  @Override
  public void record(OperationRecord record) {
    offer(record);
  }

  @Override
  public void communicator(CommunicatorEvent event) {
    offer(event);
  }

  @Override
  public void flush() {
    queue.offer(FLUSH); /* a full queue is being worked on anyway */
  }

  @Override
  public void flushRequested() {
    queue.offer(FLUSH_REQUESTED);
  }

  /** Hands over everything queued, lets the delegate finish it, and closes the delegate. */
  @Override
  public void close() {
    finish(false);
  }

  /** Drops what is queued and stops: nothing more reaches the delegate once this returns. */
  public void discard() {
    finish(true);
  }

  private void finish(boolean drop) {
    if (drop) {
      discarding = true;
      queue.clear();
    }
    if (Thread.currentThread() == thread) {
      /* Called from the delegate itself (a listener removing itself): stop after this item. */
      discarding = true;
      queue.clear();
      queue.offer(CLOSE);
      return;
    }
    try {
      queue.put(CLOSE);
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.warn("NCCL Inspector: interrupted while {} finished", thread.getName());
    }
  }

  private void run() {
    List<Object> batch = new ArrayList<>(4096);
    while (true) {
      try {
        batch.add(queue.take());
        queue.drainTo(batch, 4095);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      for (Object item : batch) {
        if (item == CLOSE) {
          try {
            delegate.flush();
            delegate.close();
          } catch (RuntimeException ex) {
            log.error("NCCL Inspector: {} failed while closing", thread.getName(), ex);
          }
          return;
        }
        if (discarding) {
          continue;
        }
        try {
          if (item == FLUSH) {
            delegate.flush();
          } else if (item == FLUSH_REQUESTED) {
            delegate.flushRequested();
          } else if (item instanceof OperationRecord r) {
            delegate.record(r);
            delivered.incrementAndGet();
          } else if (item instanceof CommunicatorEvent e) {
            delegate.communicator(e);
            delivered.incrementAndGet();
          } else {
            delegate.other(item);
            delivered.incrementAndGet();
          }
        } catch (RuntimeException | Error ex) {
          log.error("NCCL Inspector: {} failed on {}, continuing", thread.getName(),
              item.getClass().getSimpleName(), ex);
        }
      }
      batch.clear();
    }
  }
}
