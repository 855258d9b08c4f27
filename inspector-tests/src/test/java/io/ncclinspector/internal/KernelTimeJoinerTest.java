package io.ncclinspector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.InspectorEvent;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.RecordFlag;
import io.ncclinspector.TimeRecovery;
import io.ncclinspector.TimingSource;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * CUPTI kernel records joined to operation records on the dump thread: records are laid out by
 * the native core's own layout table and decoded by the real decoder; what is checked is which
 * records wait, which get their kernel's time, and that nothing is lost or kept beyond its bounds.
 */
class KernelTimeJoinerTest {
  private static final long WAIT = 1_000_000_000L;
  private final NativeCore core = NativeCore.get();
  private final RecordLayout l = core.layout();
  private final RecordDecoder decoder = new RecordDecoder(core, new CommunicatorRegistry());

  /** A 1 MiB AllReduce on 2 ranks: withheld (every channel lagged), or timed directly (execNanos > 0). */
  private ByteBuffer opRecord(long launchId, long execNanos) {
    ByteBuffer b = ByteBuffer.allocate(l.opHeaderCells * l.cellBytes).order(ByteOrder.LITTLE_ENDIAN);
    b.putShort(l.kind, (short) l.kindColl);
    b.putShort(l.cells, (short) l.opHeaderCells);
    b.put(l.func, (byte) code(NativeCore.TABLE_FUNC, "AllReduce"));
    b.put(l.datatype, (byte) code(NativeCore.TABLE_DATATYPE, "ncclFloat32"));
    b.putLong(l.commSerial, 7);
    b.putLong(l.commId, 0x77);
    b.putInt(l.rank, 0);
    b.putInt(l.nranks, 2);
    b.putInt(l.nnodes, 1);
    b.putLong(l.seq, 3);
    b.putLong(l.count, 1 << 18);
    b.putLong(l.bytes, 1 << 20);
    b.put(l.nChannels, (byte) 2);
    b.put(l.channelsSeen, (byte) 2);
    b.putLong(l.launchId, launchId);
    if (execNanos > 0) {
      b.put(l.timingSource, (byte) code(NativeCore.TABLE_TIMING_SOURCE, "kernel_gpu"));
      b.putLong(l.execNs, execNanos);
      b.put(l.timeRecovery, (byte) TimeRecovery.Method.DIRECT.ordinal());
    } else {
      b.put(l.timingSource, (byte) code(NativeCore.TABLE_TIMING_SOURCE, "none"));
      b.put(l.quarantineReason, (byte) 4); /* QUARANTINE_KERNEL_CHANNEL_DESYNC */
      b.putInt(l.flags, 1 << code(NativeCore.TABLE_RECORD_FLAG, "quarantined"));
      b.put(l.timeRecovery, (byte) TimeRecovery.Method.WITHHELD.ordinal());
      b.put(l.channelsDesynced, (byte) 2);
      b.put(l.withheldReason, (byte) 2); /* slot_reused */
    }
    return b;
  }

  /**
   * A 512 KiB Send to rank 1: withheld (its channels lag behind a send to self), or timed by its
   * channels up to the send side's stop (a lower bound, execNanos > 0).
   */
  private ByteBuffer sendRecord(long launchId, long execNanos) {
    ByteBuffer b = opRecord(launchId, execNanos);
    b.putShort(l.kind, (short) l.kindP2p);
    b.put(l.func, (byte) code(NativeCore.TABLE_FUNC, "Send"));
    b.putInt(l.peerOrRoot, 1);
    b.putLong(l.count, 1 << 17);
    b.putLong(l.bytes, 1 << 19);
    if (execNanos > 0) {
      b.putInt(l.flags, 1 << code(NativeCore.TABLE_RECORD_FLAG, "send_side_stop"));
    } else {
      b.put(l.withheldReason, (byte) 6); /* p2p_lag */
    }
    return b;
  }

  private int code(int table, String name) {
    for (int i = 0; i < core.nameCount(table); i++) {
      if (name.equals(core.name(table, i))) {
        return i;
      }
    }
    throw new AssertionError(name + " is not in native table " + table);
  }

  /** Offers a record as the dump thread does; returns whether it was held. */
  private boolean offer(KernelTimeJoiner j, ByteBuffer rec, long now, List<InspectorEvent> out) {
    InspectorEvent e = decoder.decode(rec, 0);
    boolean held = j.offer(e, rec, 0, rec.capacity(), now, out);
    if (!held) {
      out.add(e);
    }
    return held;
  }

  private static OperationRecord only(List<InspectorEvent> out) {
    assertEquals(1, out.size(), out.toString());
    return (OperationRecord) out.get(0);
  }

  @Test
  void aWithheldRecordGetsTheTimeOfTheKernelThatRanItAlone() {
    KernelTimeJoiner j = new KernelTimeJoiner(decoder, WAIT, 16, 16);
    List<InspectorEvent> out = new ArrayList<>();
    assertTrue(offer(j, opRecord(41, 0), 0, out));
    assertEquals(List.of(), out, "held until its kernel's record comes");
    j.kernel(new RecordDecoder.KernelSpan(40, 1, 1_000, 9_000), out);
    assertEquals(List.of(), out, "another launch's kernel");
    j.kernel(new RecordDecoder.KernelSpan(41, 1, 1_796_000_000_000_000_000L, 1_796_000_000_000_123_456L), out);
    OperationRecord r = only(out);
    assertEquals(TimingSource.KERNEL_CUPTI, r.timing().source());
    assertEquals(123_456, r.timing().executionNanos());
    assertEquals(Quarantine.NONE, r.timing().quarantine());
    assertTrue(r.timing().trusted());
    assertFalse(r.flags().contains(RecordFlag.QUARANTINED));
    assertFalse(r.executionTimeIsLowerBound());
    assertEquals(TimeRecovery.Method.KERNEL_RECORD, r.timeRecovery().method());
    assertEquals("slot_reused", r.timeRecovery().withheldReason(), "why the channels were left out stays said");
    /* Bandwidths from the kernel time in whole microseconds, as the reference computes them. */
    assertEquals((1 << 20) / 123_000.0, r.transfer().algorithmBandwidthGbs(), 1e-9);
    assertEquals(new KernelTimeJoiner.Counts(1, 0, 0, 0, 0), j.counts());
  }

  @Test
  void aKernelRecordBeforeItsOperationStillTimesIt() {
    KernelTimeJoiner j = new KernelTimeJoiner(decoder, WAIT, 16, 16);
    List<InspectorEvent> out = new ArrayList<>();
    j.kernel(new RecordDecoder.KernelSpan(5, 1, 100, 600), out);
    assertTrue(offer(j, opRecord(5, 0), 0, out));
    assertEquals(500, only(out).timing().executionNanos());
  }

  @Test
  void aKernelSharedBySeveralOperationsTimesNone() {
    KernelTimeJoiner j = new KernelTimeJoiner(decoder, WAIT, 16, 16);
    List<InspectorEvent> out = new ArrayList<>();
    offer(j, opRecord(9, 0), 0, out);
    j.kernel(new RecordDecoder.KernelSpan(9, 2, 100, 600), out);
    OperationRecord r = only(out);
    assertEquals(TimingSource.NONE, r.timing().source());
    assertEquals(Quarantine.KERNEL_CHANNEL_DESYNC, r.timing().quarantine());
    assertEquals(new KernelTimeJoiner.Counts(0, 0, 1, 0, 0), j.counts());
  }

  @Test
  void aSendWithoutATimeOfItsOwnGetsItsGroupsSharedKernelAsTheGroupsTime() {
    KernelTimeJoiner j = new KernelTimeJoiner(decoder, WAIT, 16, 16);
    List<InspectorEvent> out = new ArrayList<>();
    assertTrue(offer(j, sendRecord(12, 0), 0, out));
    j.kernel(new RecordDecoder.KernelSpan(12, 4, 1_000, 501_000), out);
    OperationRecord r = only(out);
    assertEquals(TimingSource.KERNEL_CUPTI_GROUP, r.timing().source());
    assertEquals(500_000, r.timing().executionNanos(), "the kernel the AlltoAll's four operations shared");
    assertEquals(1_000, r.timing().gpuStartNanos());
    assertEquals(Quarantine.NONE, r.timing().quarantine());
    assertFalse(r.timing().trusted(), "the group's time, not the send's: kept out of the class's figures");
    assertFalse(r.flags().contains(RecordFlag.QUARANTINED));
    assertEquals(TimeRecovery.Method.KERNEL_RECORD_GROUP, r.timeRecovery().method());
    assertEquals("p2p_lag", r.timeRecovery().withheldReason(), "why the channels were left out stays said");
    assertEquals((1 << 19) / 500_000.0, r.transfer().algorithmBandwidthGbs(), 1e-9);
    assertEquals(new KernelTimeJoiner.Counts(0, 1, 0, 0, 0), j.counts());
  }

  @Test
  void aSendWithAChannelTimeOfItsOwnKeepsItAndACollectiveIsNeverGivenItsGroupsTime() {
    KernelTimeJoiner j = new KernelTimeJoiner(decoder, WAIT, 16, 16);
    List<InspectorEvent> out = new ArrayList<>();
    assertTrue(offer(j, sendRecord(13, 40_000), 0, out), "a send-side stop is a lower bound: it waits");
    assertTrue(offer(j, opRecord(13, 0), 0, out));
    j.kernel(new RecordDecoder.KernelSpan(13, 3, 0, 90_000), out);
    assertEquals(2, out.size());
    OperationRecord send = (OperationRecord) out.get(0);
    assertEquals(TimingSource.KERNEL_GPU, send.timing().source());
    assertEquals(40_000, send.timing().executionNanos());
    assertTrue(send.executionTimeIsLowerBound());
    OperationRecord coll = (OperationRecord) out.get(1);
    assertEquals(TimingSource.NONE, coll.timing().source(), "grouped collectives: each one's time is unknown");
    assertEquals(new KernelTimeJoiner.Counts(0, 0, 2, 0, 0), j.counts());
  }

  /** The AllReduce timed only by the CPU callbacks of its channels (no GPU timestamp), not quarantined. */
  private ByteBuffer cpuTimedRecord(long launchId) {
    ByteBuffer b = opRecord(launchId, 0);
    b.put(l.timingSource, (byte) code(NativeCore.TABLE_TIMING_SOURCE, "kernel_cpu"));
    b.putLong(l.execNs, 70_000);
    b.put(l.quarantineReason, (byte) 0);
    b.putInt(l.flags, 0);
    b.put(l.timeRecovery, (byte) TimeRecovery.Method.NOT_KERNEL.ordinal());
    return b;
  }

  @Test
  void withGpuTimesRequiredWhatNoKernelTimedIsDroppedAndCounted() {
    KernelTimeJoiner j = new KernelTimeJoiner(decoder, WAIT, 16, 16, true);
    List<InspectorEvent> out = new ArrayList<>();
    assertTrue(offer(j, cpuTimedRecord(21), 0, out));
    assertTrue(offer(j, cpuTimedRecord(22), 0, out));
    assertTrue(offer(j, cpuTimedRecord(23), 0, out));
    assertTrue(offer(j, sendRecord(22, 0), 0, out));
    assertTrue(offer(j, opRecord(22, 0), 0, out));
    j.kernel(new RecordDecoder.KernelSpan(21, 1, 0, 30_000), out);
    j.kernel(new RecordDecoder.KernelSpan(22, 3, 0, 90_000), out);
    j.releaseAll(out); /* 23's kernel never came */
    assertEquals(3, out.size(), out.toString());
    assertEquals(TimingSource.KERNEL_CUPTI, ((OperationRecord) out.get(0)).timing().source());
    assertEquals(TimingSource.KERNEL_CUPTI_GROUP, ((OperationRecord) out.get(1)).timing().source());
    assertEquals(Quarantine.KERNEL_CHANNEL_DESYNC, ((OperationRecord) out.get(2)).timing().quarantine(),
        "a quarantined record travels, as from the native core");
    assertEquals(2, j.droppedUntimed(), "the CPU-timed collective in a shared kernel, and the one whose kernel never came");

    KernelTimeJoiner keepAll = new KernelTimeJoiner(decoder, WAIT, 16, 16, false);
    out.clear();
    offer(keepAll, cpuTimedRecord(31), 0, out);
    keepAll.releaseAll(out);
    assertEquals(TimingSource.KERNEL_CPU, only(out).timing().source());
    assertEquals(0, keepAll.droppedUntimed());
  }

  @Test
  void directTimesAndRecordsWithoutALaunchGoOnAtOnce() {
    KernelTimeJoiner j = new KernelTimeJoiner(decoder, WAIT, 16, 16);
    List<InspectorEvent> out = new ArrayList<>();
    assertFalse(offer(j, opRecord(3, 42_000), 0, out));
    assertFalse(offer(j, opRecord(0, 0), 0, out));
    assertEquals(2, out.size());
    assertEquals(TimingSource.KERNEL_GPU, ((OperationRecord) out.get(0)).timing().source());
    assertEquals(0, j.held());
  }

  @Test
  void collectivesTimedBothWaysAreComparedWhicheverComesFirst() {
    KernelTimeJoiner j = new KernelTimeJoiner(decoder, WAIT, 16, 16);
    List<InspectorEvent> out = new ArrayList<>();
    assertFalse(offer(j, opRecord(3, 42_000), 0, out));
    j.kernel(new RecordDecoder.KernelSpan(3, 1, 0, 45_000), out);
    j.kernel(new RecordDecoder.KernelSpan(4, 1, 100, 20_100), out);
    assertFalse(offer(j, opRecord(4, 50_000), 0, out));
    j.kernel(new RecordDecoder.KernelSpan(5, 2, 0, 90_000), out); /* shared: not this collective's */
    assertFalse(offer(j, opRecord(5, 50_000), 0, out));
    assertEquals(3, out.size(), "every record went on at once, as it was");
    assertEquals(TimingSource.KERNEL_GPU, ((OperationRecord) out.get(0)).timing().source());
    assertEquals(new KernelTimeJoiner.CrossCheck(2, -30_000, 3_000, -27_000, 1), j.crossCheck());
  }

  @Test
  void longKernelsMayDriftTwentyFivePartsPerMillionAndStillAgree() {
    KernelTimeJoiner j = new KernelTimeJoiner(decoder, WAIT, 16, 16);
    List<InspectorEvent> out = new ArrayList<>();
    /* The first AllReduce of an H100 run: a 1.51 s kernel, 29.7 us longer than its channels. */
    j.kernel(new RecordDecoder.KernelSpan(61, 1, 0, 1_507_674_459), out);
    offer(j, opRecord(61, 1_507_644_768), 0, out);
    assertEquals(0, j.crossCheck().disagreeing());
    /* 60 us on the same kernel is beyond 10 us + 25 ppm (47.7 us): another kernel's time. */
    j.kernel(new RecordDecoder.KernelSpan(62, 1, 0, 1_507_704_768), out);
    offer(j, opRecord(62, 1_507_644_768), 0, out);
    assertEquals(1, j.crossCheck().disagreeing());
  }

  @Test
  void heldRecordsAreBoundedInTimeAndNumberAndAllComeOut() {
    KernelTimeJoiner j = new KernelTimeJoiner(decoder, WAIT, 3, 2);
    List<InspectorEvent> out = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      offer(j, opRecord(100 + i, 0), i, out);
    }
    assertEquals(2, out.size(), "the two oldest went on when a fourth and fifth came");
    assertEquals(3, j.held());
    j.expire(3 + WAIT, out);
    assertEquals(2, out.size(), "not yet past the wait");
    j.expire(4 + WAIT, out);
    assertEquals(3, out.size(), "the one held since 3 went on");
    j.releaseAll(out);
    assertEquals(5, out.size());
    assertEquals(0, j.held());
    assertEquals(new KernelTimeJoiner.Counts(0, 0, 0, 5, 0), j.counts());
    for (InspectorEvent e : out) {
      assertEquals(TimingSource.NONE, ((OperationRecord) e).timing().source(), "went on as they were");
    }
    for (int i = 0; i < 5; i++) {
      j.kernel(new RecordDecoder.KernelSpan(200 + i, 1, 0, 10), out);
    }
    List<InspectorEvent> late = new ArrayList<>();
    offer(j, opRecord(200, 0), 10, late);
    offer(j, opRecord(204, 0), 10, late);
    j.releaseAll(late);
    assertEquals(2, late.size());
    assertEquals(TimingSource.KERNEL_CUPTI, ((OperationRecord) late.get(0)).timing().source(), "kernel 204 was kept");
    assertEquals(TimingSource.NONE, ((OperationRecord) late.get(1)).timing().source(),
        "kernel 200 was forgotten: only two are kept");
  }

  /** No kernel at all while records wait in vain: the status is told why none will be timed. */
  @Test
  void aCuptiThatHandsOverNothingIsSaid() {
    KernelTimeJoiner j = new KernelTimeJoiner(decoder, WAIT, 1024, 16);
    List<InspectorEvent> out = new ArrayList<>();
    for (int i = 1; i < KernelTimeJoiner.SILENT_AFTER_MISSING; i++) {
      offer(j, opRecord(300 + i, 0), i, out);
    }
    j.releaseAll(out);
    assertNull(j.silence(), "fewer records than the threshold waited");
    offer(j, opRecord(400, 0), 100, out);
    j.releaseAll(out);
    String said = j.silence();
    assertNotNull(said);
    assertTrue(said.contains(KernelTimeJoiner.SILENT_AFTER_MISSING + " records waited"), said);
    j.kernel(new RecordDecoder.KernelSpan(500, 1, 0, 10), out);
    assertNull(j.silence(), "a kernel came: CUPTI does hand kernels over");
  }

  @Test
  void aCuptiThatStopsHandingOverKernelsIsSaid() {
    KernelTimeJoiner j = new KernelTimeJoiner(decoder, WAIT, 1024, 16);
    List<InspectorEvent> out = new ArrayList<>();
    offer(j, opRecord(600, 0), 0, out);
    j.kernel(new RecordDecoder.KernelSpan(600, 1, 0, 10), out);
    /* Then another client takes CUPTI's records: nothing more comes. */
    for (int i = 1; i <= KernelTimeJoiner.SILENT_AFTER_MISSING; i++) {
      offer(j, opRecord(600 + i, 0), i, out);
    }
    j.expire(KernelTimeJoiner.SILENT_AFTER_MISSING + WAIT + 1, out);
    String said = j.silence();
    assertNotNull(said);
    assertTrue(said.startsWith("CUPTI stopped handing over kernel records after 1: "
        + KernelTimeJoiner.SILENT_AFTER_MISSING + " records waited"), said);
    j.kernel(new RecordDecoder.KernelSpan(700, 1, 0, 10), out);
    assertNull(j.silence(), "kernels come again");
  }
}
