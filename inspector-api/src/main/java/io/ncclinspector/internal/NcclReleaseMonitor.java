package io.ncclinspector.internal;

import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.InspectorEvent;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.InspectorStatus;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.RecordFlag;
import io.ncclinspector.UntimedReason;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the inspector learns about NCCL from the records, on the dump thread: which releases and
 * profiler interfaces run the communicators (said once in the log at the first communicator),
 * calls NCCL gave no operation event, whether the NCCL workaround came too late, and communicators
 * whose operations stop getting the kernel events they used to get (said once, with the likely NCCL
 * defect and its remedy, instead of silently dropping every record as untimed).
 *
 * <p>Per record it does a few field tests and, for a communicator other than the previous record's,
 * one map lookup.
 */
public final class NcclReleaseMonitor implements EventSink, InspectorListener {
  private static final Logger log = LoggerFactory.getLogger(NcclReleaseMonitor.class);

  /**
   * Operations in a row that expected kernel events and got none, on a communicator that got them
   * before, after which kernel events are said to have stopped.
   */
  static final int STOPPED_AFTER = 3;

  private final List<InspectorStatus.Workaround> workarounds;
  private final Set<String> releases = new LinkedHashSet<>();
  private final Set<Integer> interfaces = new LinkedHashSet<>();
  private final Map<Long, Delivery> deliveries = new HashMap<>();
  private volatile InspectorStatus.Nccl snapshot;
  private volatile long notProfiled;
  private volatile boolean tooLateSaid;
  private Delivery last;

  /** Kernel-event delivery of one communicator. */
  private static final class Delivery {
    final CommunicatorInfo comm;
    int missedInARow;
    boolean stopped;

    Delivery(CommunicatorInfo comm) {
      this.comm = comm;
    }
  }

  public NcclReleaseMonitor(List<InspectorStatus.Workaround> workarounds) {
    this.workarounds = List.copyOf(workarounds);
    this.snapshot = new InspectorStatus.Nccl(List.of(), List.of(), workarounds, 0, List.of());
  }

  /** The status's view (any thread). */
  public InspectorStatus.Nccl status() {
    InspectorStatus.Nccl s = snapshot;
    return new InspectorStatus.Nccl(s.releases(), s.interfaceVersions(), s.workarounds(), notProfiled,
        s.kernelEventsStopped());
  }

  /** One sentence per problem, for the status. */
  public List<String> problems() {
    List<String> out = new ArrayList<>();
    for (String comm : snapshot.kernelEventsStopped()) {
      out.add("communicator " + comm + " stopped getting kernel events from NCCL: its records are untimed"
          + " (NCCL 2.29-2.30 do so after a Broadcast on their AllGatherV path; NCCL_ALLGATHERV_ENABLE=0 before the"
          + " first communicator avoids it)");
    }
    if (tooLateSaid) {
      out.add(NcclWorkarounds.ALLGATHERV_VARIABLE + "=0 came too late: NCCL had read it before enable(), so its"
          + " broadcasts run without profiler events (enable() must come before the first ncclBroadcast)");
    }
    return out;
  }

  @Override
  public void accept(InspectorEvent event) {
    event.deliverTo(this);
  }

  @Override
  public void communicatorCreated(CommunicatorInfo c) {
    String release = c.ncclVersion().orElse("unknown");
    boolean newRelease = releases.add(release);
    boolean newInterface = interfaces.add(c.profilerInterfaceVersion());
    if (newRelease || newInterface) {
      publish();
      log.info("NCCL Inspector: communicator {} (rank {} of {}) runs on NCCL {}, profiler interface v{}{}",
          c.idHex(), c.rank(), c.ranks(), release, c.profilerInterfaceVersion(), workaroundNote());
    }
  }

  private String workaroundNote() {
    StringBuilder b = new StringBuilder();
    for (InspectorStatus.Workaround w : workarounds) {
      if (w.applied()) {
        b.append("; ").append(w.variable()).append('=').append(w.value()).append(" set by enable()");
      }
    }
    return b.toString();
  }

  @Override
  public void communicatorDestroyed(CommunicatorInfo c) {
    Delivery d = deliveries.remove(c.serial());
    if (d == last) {
      last = null;
    }
  }

  @Override
  public void operationCompleted(OperationRecord r) {
    if (r.flags().contains(RecordFlag.NOT_PROFILED_BY_NCCL)) {
      notProfiled++; /* one writer, the dump thread */
      if (r.timing().untimedReason() == UntimedReason.NCCL_BROADCAST_ALLGATHERV && !tooLateSaid && appliedAllgatherv()) {
        tooLateSaid = true;
        log.warn("NCCL Inspector: NCCL ran a Broadcast on its AllGatherV path although enable() set {}=0: NCCL had "
            + "read the variable before (a Broadcast before enable()); its broadcasts are recorded untimed. Call "
            + "enable() before the first NCCL operation, or set {}=0 in the job's environment",
            NcclWorkarounds.ALLGATHERV_VARIABLE, NcclWorkarounds.ALLGATHERV_VARIABLE);
      }
      return;
    }
    if (r.channels().seen() == 0 && r.timing().quarantine() != Quarantine.KERNEL_EVENTS_MISSING) {
      return; /* no kernel events were to come, or none ever came on this communicator */
    }
    Delivery d = delivery(r.communicator());
    if (r.channels().seen() > 0) {
      d.missedInARow = 0;
      if (d.stopped) {
        d.stopped = false;
        publish();
        log.info("NCCL Inspector: communicator {} (rank {}) gets kernel events from NCCL again",
            d.comm.idHex(), d.comm.rank());
      }
      return;
    }
    /* The core marks these: announced channels that never came after earlier ones did. */
    if (r.timing().quarantine() != Quarantine.KERNEL_EVENTS_MISSING || d.stopped) {
      return;
    }
    if (++d.missedInARow >= STOPPED_AFTER) {
      d.stopped = true;
      publish();
      log.warn("NCCL Inspector: communicator {} (rank {}, NCCL {}) stopped getting kernel events: its last {} "
          + "operations got none after earlier ones did, so they are untimed. NCCL 2.29-2.30 stop delivering them "
          + "after a Broadcast on their AllGatherV path (NCCL issue 2278): set {}=0 before the first communicator "
          + "(enable() does unless ncclWorkarounds is off)", d.comm.idHex(), d.comm.rank(),
          d.comm.ncclVersion().orElse("unknown"), d.missedInARow, NcclWorkarounds.ALLGATHERV_VARIABLE);
    }
  }

  private boolean appliedAllgatherv() {
    return workarounds.stream().anyMatch(w -> w.applied() && w.variable().equals(NcclWorkarounds.ALLGATHERV_VARIABLE));
  }

  private Delivery delivery(CommunicatorInfo c) {
    Delivery d = last;
    if (d != null && d.comm.serial() == c.serial()) {
      return d;
    }
    d = deliveries.computeIfAbsent(c.serial(), k -> new Delivery(c));
    last = d;
    return d;
  }

  private void publish() {
    List<String> stopped = new ArrayList<>();
    for (Delivery d : deliveries.values()) {
      if (d.stopped) {
        stopped.add(d.comm.idHex() + " rank " + d.comm.rank());
      }
    }
    snapshot = new InspectorStatus.Nccl(List.copyOf(releases), List.copyOf(interfaces), workarounds, notProfiled,
        stopped);
  }
}
