package io.ncclinspector.internal;

/**
 * Algorithm and bus bandwidth by the nccl-tests conventions (PERFORMANCE.md), as the reference
 * Inspector computes them, with two corrections: AlltoAll gets its (n-1)/n bus factor (the
 * reference reports 0), and an operation that crosses no link (a single-rank communicator, a send
 * or receive to the own rank) has a bus bandwidth of 0 rather than a made-up one.
 *
 * <p>Time: like the reference, bandwidth uses the execution time in whole microseconds, so both
 * report the same figures; below one microsecond the nanosecond value is used instead of
 * reporting 0.
 */
public final class Bandwidth {
  private Bandwidth() {}

  /** Algorithm and bus bandwidth in GB/s. */
  public record Figures(double algorithmGbs, double busGbs) {}

  public static Figures of(String operation, long messageBytes, long execNanos, int ranks,
      boolean crossesNoLink) {
    double seconds = seconds(execNanos);
    if (seconds <= 0 || messageBytes <= 0) {
      return new Figures(0, 0);
    }
    int n = Math.max(ranks, 1);
    double traffic;
    double busFactor;
    switch (operation) {
      case "AllReduce" -> {
        traffic = messageBytes;
        busFactor = 2.0 * (n - 1) / n;
      }
      case "AllGather", "AllGatherV", "ReduceScatter", "AlltoAll" -> {
        traffic = (double) messageBytes * n;
        busFactor = (double) (n - 1) / n;
      }
      case "Reduce", "Broadcast", "Send", "Recv", "SendRecv" -> {
        traffic = messageBytes;
        busFactor = 1.0;
      }
      default -> {
        traffic = messageBytes;
        busFactor = 0.0;
      }
    }
    double algbw = traffic / 1e9 / seconds;
    double busbw = (n == 1 || crossesNoLink) ? 0.0 : algbw * busFactor;
    return new Figures(algbw, busbw);
  }

  /** Execution time in seconds: whole microseconds like the reference, nanoseconds below 1 µs. */
  static double seconds(long execNanos) {
    long micros = execNanos / 1000;
    return micros > 0 ? micros / 1e6 : execNanos / 1e9;
  }
}
