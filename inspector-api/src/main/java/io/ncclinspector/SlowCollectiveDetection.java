package io.ncclinspector;

import java.time.Duration;
import java.util.Objects;

/**
 * How slow collectives are recognised. Each class of operation ({@link OperationClass}) of each
 * communicator keeps a rolling window of recent execution times; a record is slow when, once the
 * window holds {@code warmupSamples}, its time is more than {@code sensitivity} robust standard
 * deviations (1.4826 × median absolute deviation) above the median and at least {@code minRatio}
 * times the median — or when it exceeds the optional absolute threshold. Robust statistics keep
 * ordinary jitter and the occasional outlier from moving the baseline; grouping by size bucket,
 * algorithm and protocol keeps the normal changes of training (a new message size, a protocol
 * switch) from looking like slowdowns.
 *
 * @param enabled detection on or off
 * @param window samples in the rolling window of a class
 * @param warmupSamples samples a class needs before it can call anything slow
 * @param sensitivity robust standard deviations above the median
 * @param minRatio minimum ratio to the median (guards against a window with almost no spread)
 * @param absoluteThreshold anything slower than this is reported, whatever its class does; zero: off
 */
public record SlowCollectiveDetection(
    boolean enabled, int window, int warmupSamples, double sensitivity, double minRatio,
    Duration absoluteThreshold) {

  public SlowCollectiveDetection {
    Objects.requireNonNull(absoluteThreshold, "absoluteThreshold");
    if (window < 8 || window > 4096) {
      throw new IllegalArgumentException("window must be in [8, 4096]: " + window);
    }
    if (warmupSamples < 3 || warmupSamples > window) {
      throw new IllegalArgumentException("warmupSamples must be in [3, window]: " + warmupSamples);
    }
    if (!(sensitivity > 0) || !(minRatio >= 1)) {
      throw new IllegalArgumentException("sensitivity must be > 0 and minRatio >= 1");
    }
    if (absoluteThreshold.isNegative()) {
      throw new IllegalArgumentException("absoluteThreshold must not be negative");
    }
  }

  /** On, window 64, warm-up 20, 8 robust standard deviations, at least 1.5 times the median. */
  public static SlowCollectiveDetection defaults() {
    return new SlowCollectiveDetection(true, 64, 20, 8.0, 1.5, Duration.ZERO);
  }

  public static SlowCollectiveDetection disabled() {
    return new SlowCollectiveDetection(false, 64, 20, 8.0, 1.5, Duration.ZERO);
  }

  public SlowCollectiveDetection withSensitivity(double v) {
    return new SlowCollectiveDetection(enabled, window, warmupSamples, v, minRatio, absoluteThreshold);
  }

  public SlowCollectiveDetection withWarmupSamples(int v) {
    return new SlowCollectiveDetection(enabled, window, v, sensitivity, minRatio, absoluteThreshold);
  }

  public SlowCollectiveDetection withWindow(int v) {
    return new SlowCollectiveDetection(enabled, v, Math.min(warmupSamples, v), sensitivity, minRatio, absoluteThreshold);
  }

  public SlowCollectiveDetection withMinRatio(double v) {
    return new SlowCollectiveDetection(enabled, window, warmupSamples, sensitivity, v, absoluteThreshold);
  }

  public SlowCollectiveDetection withAbsoluteThreshold(Duration v) {
    return new SlowCollectiveDetection(enabled, window, warmupSamples, sensitivity, minRatio, v);
  }
}
