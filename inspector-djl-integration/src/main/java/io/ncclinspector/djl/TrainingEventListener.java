package io.ncclinspector.djl;

import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.HangEvent;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.SlowCollectiveSummary;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listener registered with the inspector for one training. It runs on the inspector's listener
 * thread, so it only touches its own lock-protected or atomic state (never the training listener's
 * monitor: the training thread may hold that while closing the inspector, which waits for this
 * thread).
 */
final class TrainingEventListener implements InspectorListener {
  private static final Logger log = LoggerFactory.getLogger(NcclTrainingListener.class);

  private final CommunicationLedger ledger;
  private final EpochIndex epochs;
  private final AtomicLong slowCollectives = new AtomicLong();
  private final AtomicLong suspectedHangs = new AtomicLong();

  TrainingEventListener(CommunicationLedger ledger, EpochIndex epochs) {
    this.ledger = ledger;
    this.epochs = epochs;
  }

  @Override
  public void operationCompleted(OperationRecord record) {
    ledger.add(record);
  }

  @Override
  public void slowCollective(SlowCollectiveEvent event) {
    slowCollectives.incrementAndGet();
    OperationRecord r = event.record();
    log.warn("NCCL {}{}; step {}, epoch {}, phase {}{}", event.describe(), rankOf(r.communicator()),
        r.tags().step(), epochs.epochOf(r.tags().step()), r.tags().phase(), advice(event.kind()));
  }

  @Override
  public void slowCollectivesSuppressed(SlowCollectiveSummary summary) {
    slowCollectives.addAndGet(summary.suppressed());
    OperationRecord worst = summary.worst().record();
    log.warn("NCCL {}{} (rate limit; the worst at step {}, epoch {}, phase {})", summary.describe(),
        rankOf(summary.communicator()), worst.tags().step(), epochs.epochOf(worst.tags().step()), worst.tags().phase());
  }

  /** What to look at for each kind of slowness. */
  private static String advice(SlowCollectiveEvent.Kind kind) {
    return switch (kind) {
      case WAITING_FOR_PEERS -> " -- this GPU was ready and waited: look for a straggling rank (data loading, host"
          + " stalls, uneven work) with nccl-inspector report";
      case SLOW_TRANSFER -> " -- its channels started far apart: other kernels may hold this GPU's multiprocessors"
          + " during communication";
      case PROXY_THREAD_SLOW -> " -- this rank's NCCL proxy thread was slow to post its network steps: look for"
          + " CPU contention on the cores NCCL's proxy thread runs on, or a slow profiler or network plugin";
      case UNKNOWN -> "";
    };
  }

  @Override
  public void hangSuspected(HangEvent event) {
    suspectedHangs.incrementAndGet();
    log.warn("NCCL operation suspected hung: {} #{} on communicator {} in flight for {} ms ({} of {} channels"
            + " started, {} done); step {}, epoch {}, phase {}",
        event.operation(), event.sequence(), describe(event.communicator()), event.age().toMillis(),
        event.progress().channelsStarted(), event.progress().announcedChannels(), event.progress().channelsDone(),
        event.tags().step(), epochs.epochOf(event.tags().step()), event.tags().phase());
  }

  long slowCollectives() {
    return slowCollectives.get();
  }

  long suspectedHangs() {
    return suspectedHangs.get();
  }

  private static String rankOf(CommunicatorInfo c) {
    return c.ranks() > 0 ? " (rank " + c.rank() + " of " + c.ranks() + ")" : "";
  }

  private static String describe(CommunicatorInfo c) {
    /* A communicator the inspector has no init record of comes with rank -1 and 0 ranks. */
    return c.ranks() > 0 ? c.idHex() + " (rank " + c.rank() + " of " + c.ranks() + ")" : c.idHex();
  }
}
