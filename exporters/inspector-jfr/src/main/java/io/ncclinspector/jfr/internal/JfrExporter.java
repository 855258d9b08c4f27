package io.ncclinspector.jfr.internal;

import io.ncclinspector.ClassStatistics;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.CommunicatorSnapshot;
import io.ncclinspector.HangEvent;
import io.ncclinspector.InspectorSnapshot;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.spi.InspectorExporter;
import java.util.function.Supplier;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;

/**
 * Emits the inspector's JFR events ({@link io.ncclinspector.jfr.JfrEvents}): an exporter, on a
 * thread of its own; the periodic events read snapshots when a recording asks for them.
 */
public final class JfrExporter implements InspectorExporter {
  private final Supplier<InspectorSnapshot> snapshots;
  private final Runnable statisticsHook = this::emitStatistics;
  private final Runnable statusHook = this::emitStatus;
  private final EventType operationType = EventType.getEventType(JfrOperation.class);

  /** Registers the periodic events, which read {@code snapshots} when a recording asks for them. */
  public JfrExporter(Supplier<InspectorSnapshot> snapshots) {
    this.snapshots = snapshots;
    FlightRecorder.addPeriodicEvent(JfrOperationStatistics.class, statisticsHook);
    FlightRecorder.addPeriodicEvent(JfrInspectorStatus.class, statusHook);
  }

  /**
   * Operations are queued for this exporter only while a recording has {@value JfrEvents#OPERATION}
   * enabled: with none (the usual case) the inspector's threads do not hand each one over for
   * nothing. A recording that starts gets them from the next batch on.
   */
  @Override
  public boolean wantsOperations() {
    return operationType.isEnabled();
  }

  /** A completed operation (emitted only when a recording enabled {@value JfrEvents#OPERATION}). */
  @Override
  public void operationCompleted(OperationRecord r) {
    JfrOperation e = new JfrOperation();
    if (!e.shouldCommit()) {
      return;
    }
    e.record(r);
    e.ranks = r.communicator().ranks();
    e.gpu = r.communicator().gpuUuid();
    e.busBandwidth = r.transfer().busBandwidthGbs();
    e.algorithmBandwidth = r.transfer().algorithmBandwidthGbs();
    e.timingSource = r.timing().source().jsonName();
    e.commit();
  }

  /**
   * A slow collective, every one the detector found, with whether listeners heard of it or the
   * rate limit counted it into a summary.
   */
  @Override
  public void slowCollective(SlowCollectiveEvent s) {
    JfrSlowCollective e = new JfrSlowCollective();
    if (!e.shouldCommit()) {
      return;
    }
    e.record(s.record());
    e.baselineMedian = s.baseline().medianNanos();
    e.baselineHigh = s.baseline().highNanos();
    e.threshold = s.baseline().thresholdNanos();
    e.samples = s.baseline().samples();
    e.ratio = s.ratio();
    e.reason = s.reason().name();
    e.kind = s.kind().name();
    e.delivered = !s.rateLimited();
    e.commit();
  }

  @Override
  public void hangSuspected(HangEvent h) {
    JfrSuspectedHang e = new JfrSuspectedHang();
    if (!e.shouldCommit()) {
      return;
    }
    e.communicator(h.communicator());
    e.operation = h.operation();
    e.sequence = h.sequence();
    e.enqueued = h.enqueuedAt().toEpochMilli();
    e.age = h.age().toNanos();
    e.channelsStarted = h.progress().channelsStarted();
    e.channelsDone = h.progress().channelsDone();
    e.announcedChannels = h.progress().announcedChannels();
    e.enqueueDone = h.progress().enqueueDone();
    e.step = h.tags().step();
    e.phase = h.tags().phase();
    e.commit();
  }

  private void emitStatistics() {
    for (CommunicatorSnapshot cs : snapshots.get().communicators()) {
      CommunicatorInfo c = cs.communicator();
      for (ClassStatistics k : cs.classes()) {
        JfrOperationStatistics e = new JfrOperationStatistics();
        e.communicator(c);
        e.ranks = c.ranks();
        e.live = cs.live();
        e.operation = k.operationClass().operation();
        e.algorithm = k.operationClass().algorithm();
        e.protocol = k.operationClass().protocol();
        e.sizeBucket = k.operationClass().sizeBucketBytes();
        e.count = k.count();
        e.bytes = k.bytes();
        e.executionMean = (long) k.executionNanos().mean();
        e.executionP50 = (long) k.executionNanos().p50();
        e.executionP99 = (long) k.executionNanos().p99();
        e.executionMax = (long) k.executionNanos().max();
        e.busBandwidthMean = k.busBandwidthGbs().mean();
        e.busBandwidthP50 = k.busBandwidthGbs().p50();
        e.commit();
      }
    }
  }

  private void emitStatus() {
    InspectorSnapshot s = snapshots.get();
    JfrInspectorStatus e = new JfrInspectorStatus();
    e.recordsReceived = s.recordsReceived();
    e.dropped = s.counters().totalDrops();
    e.quarantined = s.counters().totalQuarantined();
    e.communicators = (int) s.communicators().stream().filter(CommunicatorSnapshot::live).count();
    e.paused = s.paused();
    e.commit();
  }

  /** Unregisters the periodic events. */
  @Override
  public void close() {
    FlightRecorder.removePeriodicEvent(statisticsHook);
    FlightRecorder.removePeriodicEvent(statusHook);
  }
}
