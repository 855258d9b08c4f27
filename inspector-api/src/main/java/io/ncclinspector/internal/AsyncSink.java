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
 * draining the native ring. When the queue is full the record is dropped and counted; nothing
 * blocks.
 */
public final class AsyncSink implements RecordSink {
  private static final Logger log = LoggerFactory.getLogger(AsyncSink.class);
  private static final Object FLUSH = new Object();
  private static final Object CLOSE = new Object();

  private final RecordSink delegate;
  private final BlockingQueue<Object> queue;
  private final Thread thread;
  private final AtomicLong dropped = new AtomicLong();

  public AsyncSink(RecordSink delegate, String threadName, int capacity) {
    this.delegate = delegate;
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.thread = new Thread(this::run, threadName);
    this.thread.setDaemon(true);
    this.thread.start();
  }

  /** Records dropped because the queue was full. */
  public long dropped() {
    return dropped.get();
  }

  @Override
  public void record(OperationRecord record) {
    if (!queue.offer(record)) {
      dropped.incrementAndGet();
    }
  }

  @Override
  public void communicator(CommunicatorEvent event) {
    if (!queue.offer(event)) {
      dropped.incrementAndGet();
    }
  }

  @Override
  public void flush() {
    queue.offer(FLUSH); /* a full queue is being worked on anyway */
  }

  /** Hands over everything queued, lets the delegate write it, and closes it. */
  @Override
  public void close() {
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
        try {
          if (item == CLOSE) {
            delegate.flush();
            delegate.close();
            return;
          } else if (item == FLUSH) {
            delegate.flush();
          } else if (item instanceof OperationRecord r) {
            delegate.record(r);
          } else if (item instanceof CommunicatorEvent e) {
            delegate.communicator(e);
          }
        } catch (RuntimeException ex) {
          log.error("NCCL Inspector: {} failed on an item, continuing", thread.getName(), ex);
        }
      }
      batch.clear();
    }
  }
}
