package io.ncclinspector.jfr;

import io.ncclinspector.ClassStatistics;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.CommunicatorSnapshot;
import io.ncclinspector.HangEvent;
import io.ncclinspector.InspectorSnapshot;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.SlowCollectiveEvent;
import java.util.function.Supplier;
import jdk.jfr.FlightRecorder;

/**
 * The inspector's JDK Flight Recorder events, so that collectives show in Mission Control next to
 * GC pauses. They follow the recording's settings like any JDK event: slow collectives, suspected
 * hangs and the two periodic events are on by default, every single operation is off by default.
 * While no recording enables an event, emitting it costs a check of a flag.
 *
 * <pre>
 * java -XX:StartFlightRecording:filename=job.jfr,+io.ncclinspector.Operation#enabled=true ...
 * jfr print --events io.ncclinspector.SlowCollective job.jfr
 * </pre>
 *
 * <p>An instance is made by the inspector when {@code InspectorConfig.jfrEvents()} is on; it is
 * not meant to be created by applications.
 */
public final class JfrEvents implements AutoCloseable {
  public static final String OPERATION = "io.ncclinspector.Operation";
  public static final String SLOW_COLLECTIVE = "io.ncclinspector.SlowCollective";
  public static final String SUSPECTED_HANG = "io.ncclinspector.SuspectedHang";
  public static final String OPERATION_STATISTICS = "io.ncclinspector.OperationStatistics";
  public static final String INSPECTOR_STATUS = "io.ncclinspector.InspectorStatus";

  private final Supplier<InspectorSnapshot> snapshots;
  private final Runnable statisticsHook = this::emitStatistics;
  private final Runnable statusHook = this::emitStatus;

  /** Registers the periodic events, which read {@code snapshots} when a recording asks for them. */
  public JfrEvents(Supplier<InspectorSnapshot> snapshots) {
    this.snapshots = snapshots;
    FlightRecorder.addPeriodicEvent(JfrOperationStatistics.class, statisticsHook);
    FlightRecorder.addPeriodicEvent(JfrInspectorStatus.class, statusHook);
  }

  /** A completed operation (emitted only when a recording enabled {@value #OPERATION}). */
  public void operation(OperationRecord r) {
    JfrOperation e = new JfrOperation();
    if (!e.shouldCommit()) {
      return;
    }
    e.record(r);
    e.ranks = r.communicator().ranks();
    e.gpu = r.communicator().gpuUuid();
    e.busBandwidth = r.busBandwidthGbs();
    e.algorithmBandwidth = r.algorithmBandwidthGbs();
    e.timingSource = r.timingSource().jsonName();
    e.commit();
  }

  /**
   * A slow collective, every one the detector found, with whether listeners heard of it or the
   * rate limit counted it into a summary.
   */
  public void slowCollective(SlowCollectiveEvent s, boolean delivered) {
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
    e.delivered = delivered;
    e.commit();
  }

  public void hang(HangEvent h) {
    JfrSuspectedHang e = new JfrSuspectedHang();
    if (!e.shouldCommit()) {
      return;
    }
    e.communicator(h.communicator());
    e.operation = h.operation();
    e.sequence = h.sequence();
    e.enqueued = h.enqueuedAt().toEpochMilli();
    e.age = h.age().toNanos();
    e.channelsStarted = h.channelsStarted();
    e.channelsDone = h.channelsDone();
    e.announcedChannels = h.announcedChannels();
    e.enqueueDone = h.enqueueDone();
    e.step = h.step();
    e.phase = h.phase();
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
    e.quarantined = s.counters().quarantined().values().stream().mapToLong(Long::longValue).sum();
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
