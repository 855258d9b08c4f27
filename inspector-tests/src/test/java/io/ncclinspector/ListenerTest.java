package io.ncclinspector;

import io.ncclinspector.testsupport.Await;
import io.ncclinspector.testsupport.LogCapture;
import io.ncclinspector.testkit.SyntheticTrace;
import io.ncclinspector.replay.TracePlayer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class ListenerTest {
  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();

  @AfterEach
  void closeAll() {
    NcclInspector.current().ifPresent(NcclInspector::close);
  }

  private NcclInspector enable() {
    return NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir.resolve("out")).minMessageBytes(0)
        .requireKernelTiming(false).build());
  }

  /** Records everything it hears, on its thread. */
  static final class Collecting implements InspectorListener {
    final List<OperationRecord> records = new CopyOnWriteArrayList<>();
    final List<CommunicatorInfo> created = new CopyOnWriteArrayList<>();
    final List<CommunicatorInfo> destroyed = new CopyOnWriteArrayList<>();
    final AtomicReference<Thread> thread = new AtomicReference<>();

    @Override
    public void communicatorCreated(CommunicatorInfo c) {
      created.add(c);
    }

    @Override
    public void communicatorDestroyed(CommunicatorInfo c) {
      destroyed.add(c);
    }

    @Override
    public void operationCompleted(OperationRecord r) {
      thread.set(Thread.currentThread());
      records.add(r);
    }
  }

  private static Path twoCommunicators(Path dir) throws Exception {
    SyntheticTrace s = new SyntheticTrace().init(1, 0xaaaaL, 0, 2).init(2, 0xbbbbL, 0, 2);
    for (int i = 0; i < 10; i++) {
      int a = s.coll(1, "AllReduce", i, 1 << 20, "ncclFloat32", 0);
      s.stop(a);
      int b = s.coll(2, "AllGather", i, 1 << 20, "ncclInt8", 0);
      s.stop(b);
    }
    return s.fini(1).fini(2).write(dir, 1);
  }

  @Test
  void listenersHearTheirCommunicatorsOnTheirOwnThread() throws Exception {
    NcclInspector inspector = enable();
    Collecting all = new Collecting();
    Collecting onlyB = new Collecting();
    inspector.addListener(all);
    inspector.addListener(CommunicatorSelector.byId(0xbbbbL), onlyB);
    try (TracePlayer d = TracePlayer.open(inspector, twoCommunicators(dir.resolve("t")))) {
      d.playAll();
    }
    inspector.close(); /* delivers everything before returning */
    assertEquals(20, all.records.size());
    assertEquals(10, onlyB.records.size());
    assertTrue(onlyB.records.stream().allMatch(r -> r.communicator().id() == 0xbbbbL));
    assertEquals(2, all.created.size());
    assertEquals(2, all.destroyed.size());
    assertEquals(1, onlyB.created.size());
    assertTrue(all.thread.get().getName().startsWith("nccl-inspector-listener-"));
    assertEquals(List.of("synthetic"), onlyB.created.stream().map(CommunicatorInfo::name).toList());
    assertEquals(5, all.created.get(0).profilerInterfaceVersion());
  }

  @Test
  void selectingByNameAndSeeingCommunicatorsThatAlreadyExist() throws Exception {
    NcclInspector inspector = enable();
    try (TracePlayer d = TracePlayer.open(inspector, twoCommunicators(dir.resolve("t")))) {
      d.play(2); /* both communicators are created */
      Await.until(() -> inspector.communicators().size() == 2);
      Collecting late = new Collecting();
      inspector.addListener(CommunicatorSelector.byName("synthetic"), late);
      Collecting nobody = new Collecting();
      inspector.addListener(CommunicatorSelector.byName("other"), nobody);
      d.playAll();
      inspector.close();
      assertEquals(2, late.created.size(), "told about communicators already live");
      assertEquals(20, late.records.size());
      assertEquals(0, nobody.records.size() + nobody.created.size());
    }
  }

  @Test
  void aThrowingListenerIsLoggedAndKeepsReceiving() throws Exception {
    logs.expect("ERROR", "failed on CollectiveRecord, continuing");
    NcclInspector inspector = enable();
    AtomicInteger calls = new AtomicInteger();
    inspector.addListener(new InspectorListener() {
      @Override
      public void operationCompleted(OperationRecord r) {
        calls.incrementAndGet();
        throw new IllegalStateException("listener bug");
      }
    });
    Collecting other = new Collecting();
    inspector.addListener(other);
    try (TracePlayer d = TracePlayer.open(inspector, twoCommunicators(dir.resolve("t")))) {
      d.playAll();
    }
    inspector.close();
    assertEquals(20, calls.get());
    assertEquals(20, other.records.size());
    assertEquals(20, logs.find("ERROR", "failed on CollectiveRecord").size(), "each failure logged");
    assertTrue(logs.find("ERROR", "failed on CollectiveRecord").get(0).text().contains("listener bug"));
  }

  @Test
  void aSlowListenerLosesOnlyItsOwnEventsAndStallsNothing() throws Exception {
    NcclInspector inspector = enable();
    CountDownLatch release = new CountDownLatch(1);
    ListenerRegistration slow = inspector.addListener(CommunicatorSelector.all(), new InspectorListener() {
      @Override
      public void operationCompleted(OperationRecord r) {
        try {
          release.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }, 4);
    Collecting fast = new Collecting();
    inspector.addListener(fast);
    long t0 = System.nanoTime();
    try (TracePlayer d = TracePlayer.open(inspector, twoCommunicators(dir.resolve("t")))) {
      d.playAll();
    }
    Await.until(() -> fast.records.size() == 20);
    assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos(), "nothing waited for the slow listener");
    assertTrue(slow.dropped() > 0, "its queue overflowed");
    release.countDown();
    inspector.close();
    assertEquals(20, inspector.status().records().received());
    assertEquals(20, inspector.status().records().written(), "the JSON output did not lose anything");
    assertEquals(24, slow.delivered() + slow.dropped(),
        "each of the 24 events (20 records, 2 communicators created and destroyed) delivered or counted");
  }

  @Test
  void removingAListenerStopsItsEvents() throws Exception {
    NcclInspector inspector = enable();
    Collecting first = new Collecting();
    ListenerRegistration reg = inspector.addListener(first);
    try (TracePlayer d = TracePlayer.open(inspector, twoCommunicators(dir.resolve("t")))) {
      d.play(6);
      Await.until(() -> first.records.size() == 2);
      reg.close();
      int seen = first.records.size();
      d.playAll();
      inspector.close();
      assertEquals(seen, first.records.size(), "nothing after close returned");
      reg.close(); /* twice: harmless */
    }
  }

  /** A listener stuck in its callback until released (interrupts do not free it). */
  static final class Stuck implements InspectorListener {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void operationCompleted(OperationRecord r) {
      entered.countDown();
      while (release.getCount() > 0) {
        try {
          release.await();
        } catch (InterruptedException e) {
          // stuck for good: ignores the interrupt
        }
      }
    }
  }

  @Test
  void aStuckListenerIsAbandonedAtCloseWithinTheTimeoutAndCounted() throws Exception {
    logs.expect("WARN", "is abandoned");
    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir.resolve("out"))
        .minMessageBytes(0).requireKernelTiming(false).listenerCloseTimeout(Duration.ofMillis(300)).build());
    Stuck stuck = new Stuck();
    ListenerRegistration reg = inspector.addListener(CommunicatorSelector.all(), stuck, 4); /* its queue fills up */
    Collecting other = new Collecting();
    inspector.addListener(other);
    try (TracePlayer d = TracePlayer.open(inspector, twoCommunicators(dir.resolve("t")))) {
      d.playAll();
    }
    assertTrue(stuck.entered.await(10, TimeUnit.SECONDS));
    long t0 = System.nanoTime();
    inspector.close();
    long took = System.nanoTime() - t0;
    try {
      assertTrue(took < Duration.ofSeconds(3).toNanos(), "close waited " + took / 1_000_000 + " ms");
      assertTrue(reg.abandoned());
      assertTrue(reg.dropped() > 0, "its queued events are counted");
      assertEquals(1, inspector.counters().get("listener_abandoned"));
      assertEquals(1, inspector.status().listenersAbandoned());
      assertEquals(20, other.records.size(), "the other listener got everything");
      assertEquals(20, inspector.status().records().written(), "and so did the JSON output");
    } finally {
      stuck.release.countDown();
    }
  }

  @Test
  void removingAStuckListenerReturnsWithinTheTimeout() throws Exception {
    logs.expect("WARN", "is abandoned");
    NcclInspector inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir.resolve("out"))
        .minMessageBytes(0).requireKernelTiming(false).listenerCloseTimeout(Duration.ofMillis(300)).build());
    Stuck stuck = new Stuck();
    ListenerRegistration reg = inspector.addListener(stuck);
    try (TracePlayer d = TracePlayer.open(inspector, twoCommunicators(dir.resolve("t")))) {
      d.playAll();
      assertTrue(stuck.entered.await(10, TimeUnit.SECONDS));
      long t0 = System.nanoTime();
      reg.close();
      assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(3).toNanos());
      assertTrue(reg.abandoned());
    } finally {
      stuck.release.countDown();
    }
    inspector.close();
    assertEquals(1, inspector.counters().get("listener_abandoned"));
  }

  @Test
  void closingTheInspectorFromInsideAListenerDoesNotStall() throws Exception {
    NcclInspector inspector = enable();
    AtomicReference<Long> closeTook = new AtomicReference<>();
    List<OperationRecord> after = new CopyOnWriteArrayList<>();
    inspector.addListener(new InspectorListener() {
      @Override
      public void operationCompleted(OperationRecord r) {
        if (closeTook.get() == null) {
          long t0 = System.nanoTime();
          inspector.close();
          closeTook.set(System.nanoTime() - t0);
        } else {
          after.add(r);
        }
      }
    });
    try (TracePlayer d = TracePlayer.open(inspector, twoCommunicators(dir.resolve("t")))) {
      d.playAll();
    }
    Await.until(() -> closeTook.get() != null);
    assertTrue(closeTook.get() < Duration.ofSeconds(3).toNanos(), "close from a listener took "
        + closeTook.get() / 1_000_000 + " ms");
    assertTrue(!inspector.isActive());
    assertEquals(inspector.status().records().received(), inspector.status().records().written(), "everything received was written");
    Await.until(() -> after.size() == inspector.status().records().received() - 1);
  }
}
