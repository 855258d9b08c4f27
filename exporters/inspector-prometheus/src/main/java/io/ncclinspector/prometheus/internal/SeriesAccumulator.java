package io.ncclinspector.prometheus.internal;

/**
 * What one series has seen: the interval aggregates behind the reference's gauges (reset at every
 * write, as the reference rebuilds its maps each dump) and cumulative histograms (never reset,
 * as Prometheus counters must be).
 */
final class SeriesAccumulator {
  /* Interval: count, sum of execution microseconds, sum of ln(busBw) over busBw > 0. */
  long intervalCount;
  double intervalExecMicros;
  double intervalLogBandwidth;
  long intervalPositiveBandwidth;

  /* Cumulative: per-bucket (non-cumulative) counts, sums. */
  final long[] execBuckets = new long[FixedBuckets.EXEC_TIME_SECONDS.size() + 1];
  final long[] bandwidthBuckets = new long[FixedBuckets.BUS_BANDWIDTH_GBS.size() + 1];
  long totalCount;
  double totalExecSeconds;
  double totalBandwidth;

  void add(long execMicros, long execNanos, double busBandwidthGbs) {
    intervalCount++;
    intervalExecMicros += execMicros;
    if (busBandwidthGbs > 0) {
      intervalLogBandwidth += Math.log(busBandwidthGbs);
      intervalPositiveBandwidth++;
    }
    double seconds = execNanos / 1e9;
    execBuckets[FixedBuckets.EXEC_TIME_SECONDS.indexOf(seconds)]++;
    bandwidthBuckets[FixedBuckets.BUS_BANDWIDTH_GBS.indexOf(busBandwidthGbs)]++;
    totalCount++;
    totalExecSeconds += seconds;
    totalBandwidth += busBandwidthGbs;
  }

  boolean hasIntervalData() {
    return intervalCount > 0;
  }

  /** Arithmetic mean execution time of the interval, in µs (the reference's gauge). */
  double meanExecMicros() {
    return intervalExecMicros / intervalCount;
  }

  /** Geometric mean bus bandwidth of the interval over the operations that had one, else 0. */
  double geometricMeanBandwidth() {
    return intervalPositiveBandwidth == 0 ? 0 : Math.exp(intervalLogBandwidth / intervalPositiveBandwidth);
  }

  void resetInterval() {
    intervalCount = 0;
    intervalExecMicros = 0;
    intervalLogBandwidth = 0;
    intervalPositiveBandwidth = 0;
  }
}
