package io.ncclinspector.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.Algorithm;
import io.ncclinspector.Channels;
import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.EventTrace;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.P2pRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.RecordFlag;
import io.ncclinspector.Tags;
import io.ncclinspector.Timing;
import io.ncclinspector.TimingSource;
import io.ncclinspector.Transfer;
import io.ncclinspector.UntimedReason;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OperationClassesTest {
  private static final CommunicatorInfo COMM = new CommunicatorInfo(7, 0xabcL, "dp", 0, 8, 1, 5);

  private static Timing timing(TimingSource source, Quarantine q, UntimedReason untimed) {
    return new Timing(source.timed() ? 20_000 : 0, source, q, 0, 0, 0, 1, 0, 0, untimed);
  }

  private static Timing trusted() {
    return timing(TimingSource.KERNEL_GPU, Quarantine.NONE, UntimedReason.NONE);
  }

  private static CollectiveRecord coll(String op, String algo, String proto, long bytes, Timing t) {
    return new CollectiveRecord(COMM, op, 1, 0, new Algorithm(algo, proto, 8),
        new Transfer(bytes, "float", bytes, 1, 1), t, new Channels(1, 1, 0), Tags.NONE, Set.of(), EventTrace.NONE);
  }

  private static P2pRecord p2p(String op, long bytes) {
    return new P2pRecord(COMM, op, 1, 1, new Transfer(bytes, "int8", bytes, 1, 1), trusted(),
        new Channels(1, 1, 0), Tags.NONE, Set.of(), EventTrace.NONE);
  }

  @Test
  void keysAreEqualExactlyWhenTheLabelsAre() {
    OperationClasses<Long, String> c = OperationClasses.ordered(16);
    ClassKey<Long> a = c.keyOf(coll("AllReduce", "RING", "SIMPLE", 8192, trusted()), 7L);
    assertEquals(a, c.keyOf(coll("AllReduce", "RING", "SIMPLE", 9215, trusted()), 7L)); /* same 8-9KB label */
    assertEquals(a.hashCode(), c.keyOf(coll("AllReduce", "RING", "SIMPLE", 9215, trusted()), 7L).hashCode());
    assertEquals(new ClassKey<>(7L, "AllReduce", "RING", "SIMPLE", "8-9KB"), a);
    assertNotEquals(a, c.keyOf(coll("AllReduce", "RING", "SIMPLE", 9216, trusted()), 7L));
    assertNotEquals(a, c.keyOf(coll("AllReduce", "RING", "LL", 8192, trusted()), 7L));
    assertNotEquals(a, c.keyOf(coll("AllReduce", "TREE", "SIMPLE", 8192, trusted()), 7L));
    assertNotEquals(a, c.keyOf(coll("AllGather", "RING", "SIMPLE", 8192, trusted()), 7L));
    assertNotEquals(a, c.keyOf(coll("AllReduce", "RING", "SIMPLE", 8192, trusted()), 8L));
    assertTrue(a.collective());
    assertEquals("RING_SIMPLE", a.algoProto());
    assertEquals("COLLNET_DIRECT_SIMPLE", new ClassKey<>(1, "AllReduce", "COLLNET_DIRECT", "SIMPLE", "1-2B").algoProto());

    ClassKey<Long> send = c.keyOf(p2p("Send", 65536), 7L);
    assertEquals(new ClassKey<>(7L, "Send", null, null, "64-65KB"), send);
    assertFalse(send.collective());
    assertNull(send.algoProto());
    assertNotEquals(send, c.keyOf(p2p("Recv", 65536), 7L));
    assertThrows(IllegalArgumentException.class, () -> new ClassKey<>(1, "AllReduce", "RING", null, "1-2B"));
  }

  @Test
  void sizeLabelsAtTheUnitBoundaries() {
    OperationClasses<Long, String> c = OperationClasses.ordered(16);
    long[] bytes = {0, 1, 1023, 1024, 1025, (1L << 20) - 1, 1L << 20, (1L << 30) - 1, 1L << 30, 1L << 40,
        (1L << 50) + 1, -5};
    String[] labels = {"0-1B", "1-2B", "1023-1024B", "1-2KB", "1-2KB", "1023-1024KB", "1-2MB", "1023-1024MB",
        "1-2GB", "1-2TB", "1024-1025TB", "0-1B"};
    for (int i = 0; i < bytes.length; i++) {
      assertEquals(labels[i], c.keyOf(p2p("Send", bytes[i]), 1L).messageSize(), "size " + bytes[i]);
      assertEquals(labels[i], MessageSizeLabel.format(bytes[i]), "size " + bytes[i]);
    }
    assertEquals(1024, MessageSizeLabel.bucketKey(2047));
    assertEquals(1L << 20, MessageSizeLabel.bucketKey((1L << 20) + 5));
  }

  @Test
  void theCapGivesNoValueToFurtherClassesAndCountsThem() {
    OperationClasses<Long, StringBuilder> c = OperationClasses.ordered(2);
    StringBuilder first = c.classOf(coll("AllReduce", "RING", "SIMPLE", 8, trusted()), 1L, k -> new StringBuilder("a"));
    StringBuilder second = c.classOf(p2p("Send", 8), 1L, k -> new StringBuilder("b"));
    assertNull(c.classOf(p2p("Recv", 8), 1L, k -> new StringBuilder("c")));
    assertNull(c.classOf(p2p("Recv", 8), 1L, k -> new StringBuilder("c")));
    assertEquals(2, c.overflow());
    /* Known classes keep their value past the cap, made once. */
    assertSame(first, c.classOf(coll("AllReduce", "RING", "SIMPLE", 8, trusted()), 1L, k -> {
      throw new AssertionError("made twice");
    }));
    assertSame(second, c.classOf(p2p("Send", 8), 1L, k -> new StringBuilder()));
    assertEquals(2, c.overflow());
    assertEquals(2, c.size());
    assertEquals(List.of("a", "b"), c.classes().values().stream().map(StringBuilder::toString).toList());
    assertThrows(UnsupportedOperationException.class, () -> c.classes().clear());

    c.clear(); /* the count stays; new classes fit again */
    assertEquals(0, c.size());
    assertEquals(2, c.overflow());
    assertEquals("c", c.classOf(p2p("Recv", 8), 1L, k -> new StringBuilder("c")).toString());

    OperationClasses<Long, String> concurrent = OperationClasses.concurrent(1);
    assertEquals("x", concurrent.classOf(p2p("Send", 8), 1L, k -> "x"));
    assertNull(concurrent.classOf(p2p("Send", 8), 2L, k -> "y"));
    assertEquals(1, concurrent.overflow());
    assertThrows(IllegalArgumentException.class, () -> OperationClasses.ordered(0));
  }

  @Test
  void quarantinedRecordsAreLeftOut() {
    assertTrue(OperationClasses.recordable(coll("AllReduce", "RING", "SIMPLE", 8, trusted())));
    for (Quarantine q : Quarantine.values()) {
      if (q == Quarantine.NONE) {
        continue;
      }
      OperationRecord timed = coll("AllReduce", "RING", "SIMPLE", 8, timing(TimingSource.KERNEL_CPU, q, UntimedReason.NONE));
      OperationRecord untimed = coll("AllReduce", "RING", "SIMPLE", 8, timing(TimingSource.NONE, q, UntimedReason.NONE));
      assertFalse(OperationClasses.recordable(timed), q.name());
      assertFalse(OperationClasses.recordable(untimed), q.name());
      assertFalse(timed.timing().trusted());
    }
  }

  @Test
  void untimedRecordsThatAreNotQuarantinedAreLeftOutToo() {
    /* A call NCCL gave no operation event is untimed, not quarantined. The exporters used to
       record it with a time of 0, pulling their latency histograms down: now the filter is
       Timing.trusted(), and the call is counted by the call ledger's counters instead. */
    CollectiveRecord notProfiled = new CollectiveRecord(COMM, "Broadcast", 1, 0, new Algorithm("None", "None", 0),
        new Transfer(8, "int8", 8, 0, 0), timing(TimingSource.NONE, Quarantine.NONE, UntimedReason.NCCL_NO_OPERATION_EVENT),
        new Channels(0, 0, 0), Tags.NONE, Set.of(RecordFlag.NOT_PROFILED_BY_NCCL), EventTrace.NONE);
    assertFalse(notProfiled.timing().trusted());
    assertFalse(OperationClasses.recordable(notProfiled));
  }
}
