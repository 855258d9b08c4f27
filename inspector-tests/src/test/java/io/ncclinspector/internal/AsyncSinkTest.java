package io.ncclinspector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.spi.InspectorExporter;
import io.ncclinspector.testkit.RecordBuilder;
import io.ncclinspector.testsupport.Await;
import io.ncclinspector.testsupport.LogCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The queue in front of a sink's thread takes what the dump thread drained in one go: in order,
 * bounded in events, never blocking its caller, every event delivered or counted as dropped, even
 * when the sink's thread is stuck (a disk that stalls a write) or abandoned at close.
 */
class AsyncSinkTest {
  private static final CommunicatorInfo COMM = new CommunicatorInfo(1, 0x1234, "world", 0, 2, 1, 5);

  @RegisterExtension final LogCapture logs = new LogCapture();

  /** Records the sequence numbers it gets; blocks on the first one until released. */
  private static final class Stuck implements InspectorExporter {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final List<Long> sequences = new CopyOnWriteArrayList<>();

    @Override
    public void operationCompleted(OperationRecord r) {
      entered.countDown();
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      sequences.add(r.sequence());
    }
  }

  private static List<OperationRecord> records(long from, int n) {
    List<OperationRecord> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(RecordBuilder.collective(COMM, "AllReduce").sequence(from + i).build());
    }
    return out;
  }

  @Test
  void aBatchBeyondTheFreeRoomIsTakenInPartAndTheRestCountedWithoutWaiting() throws Exception {
    Stuck stuck = new Stuck();
    AsyncSink sink = new AsyncSink(stuck, "test-sink", 100);
    sink.accept(records(0, 1).get(0));
    assertTrue(stuck.entered.await(10, TimeUnit.SECONDS), "the sink's thread holds the first event");

    long t0 = System.nanoTime();
    sink.acceptAll(records(1, 60));
    sink.acceptAll(records(61, 60)); /* 40 of these fit */
    sink.acceptAll(records(121, 10)); /* none fits */
    assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(1).toNanos(), "never waits for the stuck thread");
    assertEquals(30, sink.dropped(), "20 of the second batch and the whole third");

    stuck.release.countDown();
    sink.close();
    assertFalse(sink.abandoned());
    assertEquals(101, sink.delivered());
    List<Long> expected = new ArrayList<>();
    for (long s = 0; s <= 100; s++) {
      expected.add(s);
    }
    assertEquals(expected, stuck.sequences, "in order, the first that fit");
  }

  @Test
  void singleEventsAndBatchesKeepTheirOrder() throws Exception {
    List<Long> seen = new CopyOnWriteArrayList<>();
    AsyncSink sink = new AsyncSink(new InspectorExporter() {
      @Override
      public void operationCompleted(OperationRecord r) {
        seen.add(r.sequence());
      }
    }, "test-sink", 1 << 12);
    List<OperationRecord> all = records(0, 3000);
    int at = 0;
    for (int size : new int[] {1, 7, 1, 500, 1, 1, 1000, 3, 1486}) {
      if (size == 1) {
        sink.accept(all.get(at));
      } else {
        sink.acceptAll(all.subList(at, at + size));
      }
      at += size;
    }
    Await.until(() -> seen.size() == 3000);
    sink.close();
    for (int i = 0; i < 3000; i++) {
      assertEquals(i, seen.get(i));
    }
    assertEquals(0, sink.dropped());
  }

  @Test
  void anAbandonedSinkCountsEveryEventItNeverHandedOver() throws Exception {
    logs.expect("WARN", "test-sink did not finish within 200 ms and is abandoned");
    Stuck stuck = new Stuck();
    AsyncSink sink = new AsyncSink(stuck, "test-sink", 1000, Duration.ofMillis(200));
    sink.acceptAll(records(0, 500));
    assertTrue(stuck.entered.await(10, TimeUnit.SECONDS));
    sink.close(); /* the thread is stuck in the first event: abandoned after 200 ms */
    assertTrue(sink.abandoned());
    stuck.release.countDown();
    sink.thread().join(10_000);
    assertEquals(500, sink.delivered() + sink.dropped(),
        "each event delivered or dropped, those the thread had taken but not handed over included");
  }
}
