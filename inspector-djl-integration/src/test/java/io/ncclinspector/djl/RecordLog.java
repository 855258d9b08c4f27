package io.ncclinspector.djl;

import io.ncclinspector.HangEvent;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.SlowCollectiveSummary;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** An independent inspector listener: keeps every record in delivery order and counts the alerts. */
final class RecordLog implements InspectorListener {
  private final List<OperationRecord> records = new CopyOnWriteArrayList<>();
  private final AtomicLong slow = new AtomicLong();
  private final AtomicLong hangs = new AtomicLong();

  @Override
  public void operationCompleted(OperationRecord record) {
    records.add(record);
  }

  @Override
  public void slowCollective(SlowCollectiveEvent event) {
    slow.incrementAndGet();
  }

  /** Those the rate limit held back count too. */
  @Override
  public void slowCollectivesSuppressed(SlowCollectiveSummary summary) {
    slow.addAndGet(summary.suppressed());
  }

  @Override
  public void hangSuspected(HangEvent event) {
    hangs.incrementAndGet();
  }

  List<OperationRecord> records() {
    return List.copyOf(records);
  }

  int size() {
    return records.size();
  }

  long slowCollectives() {
    return slow.get();
  }

  long suspectedHangs() {
    return hangs.get();
  }

  /** The step and phase tags of every record, by operation and sequence number (stable across runs). */
  Map<String, String> tags() {
    Map<String, String> tags = new TreeMap<>();
    for (OperationRecord r : records) {
      tags.put(r.operation() + "#" + r.sequence(), r.tags().step() + "/" + r.tags().phase());
    }
    return tags;
  }

  /** Waits for a condition that listener threads will make true, failing after a generous deadline. */
  static void await(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what.get());
      }
      Thread.sleep(2);
    }
  }
}
