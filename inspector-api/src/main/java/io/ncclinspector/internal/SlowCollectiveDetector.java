package io.ncclinspector.internal;

import io.ncclinspector.NetworkBreakdown;
import io.ncclinspector.OperationClass;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.RecordFlag;
import io.ncclinspector.SlowCollectiveDetection;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.SlowCollectiveEvent.Baseline;
import io.ncclinspector.SlowCollectiveEvent.Kind;
import io.ncclinspector.SlowCollectiveEvent.Reason;
import io.ncclinspector.Timing;
import io.ncclinspector.TimingSource;
import java.util.HashMap;
import java.util.Map;

/**
 * Judges each record against what is normal for its class in its communicator (the rule is
 * {@link SlowCollectiveDetection}'s), then adds it to that class's baseline. Rate limiting is
 * {@link SlowCollectiveRateLimiter}'s. Single-threaded: runs on the analysis thread.
 */
public final class SlowCollectiveDetector {
  private record Key(long communicatorSerial, OperationClass operationClass) {}

  private record FamilyKey(long communicatorSerial, String operation) {}

  private final SlowCollectiveDetection config;
  private final long minExcessNanos;
  private final long absoluteNanos;
  private final Map<Key, ClassBaseline> baselines = new HashMap<>();
  private final Map<FamilyKey, ClassFamily> families = new HashMap<>();

  public SlowCollectiveDetector(SlowCollectiveDetection config) {
    this.config = config;
    this.minExcessNanos = config.minExcess().toNanos();
    this.absoluteNanos = config.absoluteThreshold().toNanos();
  }

  /** Judges a record, then adds it to its class's baseline; returns an event if it was slow. */
  public SlowCollectiveEvent observe(OperationRecord r) {
    return observe(r, OperationClass.of(r));
  }

  /** As {@link #observe(OperationRecord)}, with the record's class already known. */
  public SlowCollectiveEvent observe(OperationRecord r, OperationClass cls) {
    if (!config.enabled() || !judgeable(r)) {
      return null;
    }
    ClassBaseline b = baselines.get(new Key(r.communicator().serial(), cls));
    if (b == null) {
      b = newBaseline(r.communicator().serial(), cls);
    }
    SlowCollectiveEvent event = judge(r, b);
    /* Over a threshold of the user's is not outside its class's range. */
    b.add(r, event != null && event.reason() != Reason.ABSOLUTE_THRESHOLD);
    return event;
  }

  private SlowCollectiveEvent judge(OperationRecord r, ClassBaseline b) {
    long x = r.timing().executionNanos();
    int samples = b.samples();
    if (samples >= config.warmupSamples()) {
      long high = b.high();
      long threshold = threshold(high);
      if (x >= threshold) {
        long median = b.median();
        return new SlowCollectiveEvent(r, new Baseline(b.operationClass, median, high, threshold, samples),
            Reason.BEYOND_CLASS_RANGE, classify(r, b, median));
      }
    } else {
      long bound = b.family.boundFor(b, config.warmupSamples());
      if (bound > 0) {
        long threshold = threshold(bound);
        if (x >= threshold) {
          return new SlowCollectiveEvent(r, new Baseline(b.operationClass, 0, bound, threshold, samples),
              Reason.BEYOND_RELATED_CLASSES, classify(r, b, bound));
        }
      }
    }
    if (absoluteNanos > 0 && x > absoluteNanos) {
      long median = samples > 0 ? b.median() : 0;
      return new SlowCollectiveEvent(r, new Baseline(b.operationClass, median,
          samples >= config.warmupSamples() ? b.high() : 0, absoluteNanos, samples),
          Reason.ABSOLUTE_THRESHOLD, classify(r, b, median));
    }
    return null;
  }

  private long threshold(long high) {
    double relative = Math.ceil(config.factor() * high);
    return (long) Math.max(Math.min(relative, (double) (Long.MAX_VALUE / 2)), (double) (high + minExcessNanos));
  }

  /**
   * Tells the kind of slowness from the record's channel skew and its delay from enqueue to GPU
   * start, each against its class's recent typical value (the GPU clock is not the host clock:
   * only differences within a class mean something). The extra time is measured from
   * {@code typical}, the class's median (or the bound it was judged against).
   */
  static Kind classify(OperationRecord r, ClassBaseline b, long typical) {
    if (proxyThreadSlow(r.network())) {
      /* Absolute evidence of the record's own, whatever its class: see Kind.PROXY_THREAD_SLOW. */
      return Kind.PROXY_THREAD_SLOW;
    }
    long excess = r.timing().executionNanos() - typical;
    if (excess > 0 && ClassBaseline.hasNetworkShape(r) && b.knowsNetwork()) {
      /* On a network transport the proxy's view decides (proxy_breakdown.h): which wait grew. */
      NetworkBreakdown n = r.network();
      if (n.receiveWaitNanos() - b.typicalReceiveWait() >= excess / 2) {
        return Kind.WAITING_FOR_PEERS;
      }
      if (n.sendGpuWaitNanos() - b.typicalGpuWait() >= excess / 2) {
        return Kind.UNKNOWN; /* the own GPU was late to produce: queued behind earlier work */
      }
      if (n.networkNanos() - b.typicalNetworkTime() >= excess / 2) {
        return Kind.SLOW_TRANSFER;
      }
    }
    if (!ClassBaseline.hasGpuShape(r) || !b.knowsShape() || excess <= 0) {
      return Kind.UNKNOWN;
    }
    long skewExcess = r.timing().gpuSkewNanos() - b.typicalSkew();
    if (skewExcess >= excess / 2) {
      return Kind.SLOW_TRANSFER;
    }
    long lateness = (r.timing().gpuStartNanos() - r.timing().startWallNanos()) - b.typicalStartDelay();
    return lateness > excess / 2 ? Kind.UNKNOWN : Kind.WAITING_FOR_PEERS;
  }

  /** Average posting time per step from which a proxy thread is slow (Kind.PROXY_THREAD_SLOW). */
  static final long PROXY_LAG_PER_STEP_NANOS = 100_000;
  /** The share of the network time that posting must take as well. */
  static final double PROXY_LAG_SHARE = 0.1;

  /**
   * Whether the proxy thread's own posting time says it was slow: at least
   * {@link #PROXY_LAG_PER_STEP_NANOS} a step on average, and at least {@link #PROXY_LAG_SHARE} of
   * the network time.
   */
  public static boolean proxyThreadSlow(NetworkBreakdown n) {
    NetworkBreakdown.StepWaits w = n.waits();
    long network = n.networkNanos();
    return n.present() && w.lagKnown() && w.steps() > 0 && network > 0
        && w.proxyLagNanos() >= PROXY_LAG_PER_STEP_NANOS * w.steps()
        && w.proxyLagNanos() >= PROXY_LAG_SHARE * network;
  }

  private ClassBaseline newBaseline(long serial, OperationClass cls) {
    ClassFamily family = families.computeIfAbsent(new FamilyKey(serial, cls.operation()), k -> new ClassFamily());
    ClassBaseline b = new ClassBaseline(cls, family, config.window(), config.factor());
    family.add(b);
    baselines.put(new Key(serial, cls), b);
    return b;
  }

  /** Forgets the baselines of a destroyed communicator. */
  public void forget(long communicatorSerial) {
    baselines.keySet().removeIf(k -> k.communicatorSerial() == communicatorSerial);
    families.keySet().removeIf(k -> k.communicatorSerial() == communicatorSerial);
  }

  /**
   * Records whose time means something: completed, not quarantined, timed by their kernels (a
   * record timed only by the CPU spans of its enqueue, or untimed, is never judged). One timed
   * by the channels that ran in step, others left out, is judged by those.
   */
  public static boolean judgeable(OperationRecord r) {
    Timing t = r.timing();
    return t.trusted() && !r.flags().contains(RecordFlag.INCOMPLETE) && t.source() != TimingSource.COLLECTIVE_CPU
        && t.executionNanos() > 0;
  }
}
