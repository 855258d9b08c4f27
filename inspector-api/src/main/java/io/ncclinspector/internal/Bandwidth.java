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
    Rule rule = Rule.of(operation);
    double algbw = rule.algorithmGbs(messageBytes, execNanos, ranks);
    return new Figures(algbw, rule.busGbs(algbw, messageBytes, execNanos, ranks, crossesNoLink));
  }

  /**
   * How an operation's traffic and bus factor follow from its size and its ranks: decided once per
   * operation name, then applied to each record without allocating.
   */
  public enum Rule {
    /** AllReduce: traffic is the message, bus factor 2(n-1)/n. */
    ALL_REDUCE,
    /** AllGather, AllGatherV, ReduceScatter, AlltoAll: traffic n messages, bus factor (n-1)/n. */
    ALL_TO_ALL,
    /** Reduce, Broadcast, Send, Recv, SendRecv: traffic the message, bus factor 1. */
    ONE_WAY,
    /** Anything else: traffic the message, no bus bandwidth. */
    UNKNOWN;

    public static Rule of(String operation) {
      return switch (operation) {
        case "AllReduce" -> ALL_REDUCE;
        case "AllGather", "AllGatherV", "ReduceScatter", "AlltoAll" -> ALL_TO_ALL;
        case "Reduce", "Broadcast", "Send", "Recv", "SendRecv" -> ONE_WAY;
        default -> UNKNOWN;
      };
    }

    /** Algorithm bandwidth in GB/s, 0 without a time or a size. */
    public double algorithmGbs(long messageBytes, long execNanos, int ranks) {
      double seconds = seconds(execNanos);
      if (seconds <= 0 || messageBytes <= 0) {
        return 0;
      }
      int n = Math.max(ranks, 1);
      double traffic = this == ALL_TO_ALL ? (double) messageBytes * n : messageBytes;
      return traffic / 1e9 / seconds;
    }

    /** Bus bandwidth in GB/s from the algorithm bandwidth of the same record. */
    public double busGbs(double algorithmGbs, long messageBytes, long execNanos, int ranks, boolean crossesNoLink) {
      if (seconds(execNanos) <= 0 || messageBytes <= 0) {
        return 0;
      }
      int n = Math.max(ranks, 1);
      double busFactor = switch (this) {
        case ALL_REDUCE -> 2.0 * (n - 1) / n;
        case ALL_TO_ALL -> (double) (n - 1) / n;
        case ONE_WAY -> 1.0;
        case UNKNOWN -> 0.0;
      };
      return (n == 1 || crossesNoLink) ? 0.0 : algorithmGbs * busFactor;
    }
  }

  /** Execution time in seconds: whole microseconds like the reference, nanoseconds below 1 µs. */
  static double seconds(long execNanos) {
    long micros = execNanos / 1000;
    return micros > 0 ? micros / 1e6 : execNanos / 1e9;
  }
}
