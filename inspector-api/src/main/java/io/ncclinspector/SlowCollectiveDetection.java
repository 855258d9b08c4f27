package io.ncclinspector;

import java.time.Duration;
import java.util.Objects;

/**
 * How slow collectives are recognised and how often listeners hear of them.
 *
 * <p>Each class of operation ({@link OperationClass}: operation, algorithm, protocol, size bucket)
 * of each communicator keeps a histogram of its last {@code window} execution times (between
 * half and all of them). Its <em>normal upper bound</em> is the 99th percentile of that window, read
 * so that a few extreme samples cannot raise it: up to two operations already found slow are
 * discounted, and of the largest values left, one more than {@code factor} times the next below it
 * is passed over (at most two). A record is slow when
 * it took at least {@code factor} times that bound <em>and</em> at least {@code minExcess} more.
 * Every mode and the tail the class has shown stay inside its range (a 2-rank all-reduce that
 * often waits 90 µs for its peer does not call those waits slow); a collective far outside
 * anything the class did is reported. Size and protocol changes start new classes rather than
 * looking like slowdowns.
 *
 * <p>A class judges on its own once it has {@code warmupSamples} samples. Before that, a record
 * is judged against the established classes of the same operation in its communicator, scaled by
 * message size (a message twice the size may take twice as long), with the same factor and floor;
 * where there are none it is not judged. The optional {@code absoluteThreshold} reports anything
 * slower, warm-up or not.
 *
 * <p>Listeners hear of at most {@code maxEventsPerInterval} slow collectives per class per
 * {@code interval}; the others of that interval are counted and delivered as one
 * {@link SlowCollectiveSummary} once the interval is over (or when the communicator or the
 * inspector closes). Quarantined, incomplete and CPU-only records are never judged.
 *
 * @param enabled detection on or off
 * @param window samples in the rolling window of a class, in [16, 65536]
 * @param warmupSamples samples a class needs before it judges on its own, in [2, window / 2]
 * @param factor how many times its class's normal upper bound a record must take, at least 1.5
 * @param minExcess how much longer than that bound it must take (an excess of a few microseconds
 *     is never worth a callback); not negative
 * @param absoluteThreshold anything slower than this is reported, whatever its class does; zero: off
 * @param maxEventsPerInterval slow-collective callbacks per class and interval, at least 1
 *     ({@link Integer#MAX_VALUE}: no limit)
 * @param interval the rate-limit interval, positive
 */
public record SlowCollectiveDetection(
    boolean enabled, int window, int warmupSamples, double factor, Duration minExcess,
    Duration absoluteThreshold, int maxEventsPerInterval, Duration interval) {

  public SlowCollectiveDetection {
    Objects.requireNonNull(minExcess, "minExcess");
    Objects.requireNonNull(absoluteThreshold, "absoluteThreshold");
    Objects.requireNonNull(interval, "interval");
    if (window < 16 || window > 65536) {
      throw new IllegalArgumentException("window must be in [16, 65536]: " + window);
    }
    if (warmupSamples < 2 || warmupSamples > window / 2) {
      throw new IllegalArgumentException("warmupSamples must be in [2, window / 2]: " + warmupSamples);
    }
    if (!(factor >= 1.5) || Double.isInfinite(factor)) {
      throw new IllegalArgumentException("factor must be a finite number of at least 1.5: " + factor);
    }
    if (minExcess.isNegative() || absoluteThreshold.isNegative()) {
      throw new IllegalArgumentException("minExcess and absoluteThreshold must not be negative");
    }
    if (maxEventsPerInterval < 1) {
      throw new IllegalArgumentException("maxEventsPerInterval must be at least 1: " + maxEventsPerInterval);
    }
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("interval must be positive: " + interval);
    }
  }

  /**
   * On; window 1024, warm-up 8, factor 5, at least 20 µs over the bound, no absolute threshold; at
   * most 5 callbacks per class every 10 s.
   */
  public static SlowCollectiveDetection defaults() {
    return new SlowCollectiveDetection(true, 1024, 8, 5.0, Duration.ofNanos(20_000), Duration.ZERO, 5,
        Duration.ofSeconds(10));
  }

  /** The defaults, off. */
  public static SlowCollectiveDetection disabled() {
    return defaults().withEnabled(false);
  }

  public SlowCollectiveDetection withEnabled(boolean v) {
    return new SlowCollectiveDetection(v, window, warmupSamples, factor, minExcess, absoluteThreshold,
        maxEventsPerInterval, interval);
  }

  public SlowCollectiveDetection withWindow(int v) {
    return new SlowCollectiveDetection(enabled, v, Math.min(warmupSamples, v / 2), factor, minExcess,
        absoluteThreshold, maxEventsPerInterval, interval);
  }

  public SlowCollectiveDetection withWarmupSamples(int v) {
    return new SlowCollectiveDetection(enabled, window, v, factor, minExcess, absoluteThreshold,
        maxEventsPerInterval, interval);
  }

  public SlowCollectiveDetection withFactor(double v) {
    return new SlowCollectiveDetection(enabled, window, warmupSamples, v, minExcess, absoluteThreshold,
        maxEventsPerInterval, interval);
  }

  public SlowCollectiveDetection withMinExcess(Duration v) {
    return new SlowCollectiveDetection(enabled, window, warmupSamples, factor, v, absoluteThreshold,
        maxEventsPerInterval, interval);
  }

  public SlowCollectiveDetection withAbsoluteThreshold(Duration v) {
    return new SlowCollectiveDetection(enabled, window, warmupSamples, factor, minExcess, v,
        maxEventsPerInterval, interval);
  }

  /** At most {@code maxEvents} callbacks per class per {@code per}; the rest summed up. */
  public SlowCollectiveDetection withRateLimit(int maxEvents, Duration per) {
    return new SlowCollectiveDetection(enabled, window, warmupSamples, factor, minExcess, absoluteThreshold,
        maxEvents, per);
  }

  /** Every slow collective is a callback. */
  public SlowCollectiveDetection withoutRateLimit() {
    return withRateLimit(Integer.MAX_VALUE, interval);
  }
}
