package io.ncclinspector.internal;

import io.ncclinspector.OperationClass;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.RecordFlag;
import io.ncclinspector.SlowCollectiveDetection;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.TimingSource;
import java.util.HashMap;
import java.util.Map;

/**
 * Judges each record against the robust baseline of its class in its communicator (see
 * {@link SlowCollectiveDetection}). Single-threaded: runs on the analysis thread.
 */
public final class SlowCollectiveDetector {
  /** 1 / Φ⁻¹(3/4): scales a median absolute deviation to a standard deviation of a normal law. */
  private static final double MAD_TO_SIGMA = 1.4826;

  private record Key(long communicatorSerial, OperationClass operationClass) {}

  private final SlowCollectiveDetection config;
  private final Map<Key, RobustBaseline> baselines = new HashMap<>();

  public SlowCollectiveDetector(SlowCollectiveDetection config) {
    this.config = config;
  }

  /** Judges a record (then adds it to its baseline); returns an event if it was slow. */
  public SlowCollectiveEvent observe(OperationRecord r) {
    if (!config.enabled() || !judgeable(r)) {
      return null;
    }
    OperationClass cls = OperationClass.of(r);
    RobustBaseline b = baselines.computeIfAbsent(new Key(r.communicator().serial(), cls),
        k -> new RobustBaseline(config.window()));
    long x = r.executionNanos();
    SlowCollectiveEvent event = null;
    long absolute = config.absoluteThreshold().toNanos();
    if (b.size() >= config.warmupSamples()) {
      long median = b.median();
      long mad = b.mad();
      /* A window with (almost) no spread would make any wobble infinitely many sigmas: the scale
         is at least 1% of the median. */
      double scale = Math.max(MAD_TO_SIGMA * mad, 0.01 * median);
      double score = scale > 0 ? (x - median) / scale : (x > median ? Double.POSITIVE_INFINITY : 0);
      if (score >= config.sensitivity() && x >= config.minRatio() * median) {
        event = new SlowCollectiveEvent(r, new SlowCollectiveEvent.Baseline(cls, median, mad, b.size()), score,
            "relative");
      } else if (absolute > 0 && x > absolute) {
        event = new SlowCollectiveEvent(r, new SlowCollectiveEvent.Baseline(cls, median, mad, b.size()), score,
            "absolute");
      }
    } else if (absolute > 0 && x > absolute) {
      event = new SlowCollectiveEvent(r, new SlowCollectiveEvent.Baseline(cls, 0, 0, b.size()),
          Double.POSITIVE_INFINITY, "absolute");
    }
    b.add(x);
    return event;
  }

  /** Forgets the baselines of a destroyed communicator. */
  public void forget(long communicatorSerial) {
    baselines.keySet().removeIf(k -> k.communicatorSerial() == communicatorSerial);
  }

  /** Records whose time means something: completed, not quarantined, timed by their kernels. */
  private static boolean judgeable(OperationRecord r) {
    return r.quarantine() == Quarantine.NONE && !r.flags().contains(RecordFlag.INCOMPLETE)
        && r.timingSource() != TimingSource.COLLECTIVE_CPU && r.executionNanos() > 0;
  }
}
