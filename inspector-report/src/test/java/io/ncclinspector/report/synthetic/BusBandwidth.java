package io.ncclinspector.report.synthetic;

/** The nccl-tests bus bandwidth factors, as this project's writer applies them. */
final class BusBandwidth {
  private BusBandwidth() {}

  /** Bus bandwidth = algorithm bandwidth × this; 0 where no link is crossed. */
  static double factor(String operation, int ranks) {
    if (ranks <= 1) {
      return 0;
    }
    double n = ranks;
    return switch (operation) {
      case "AllReduce" -> 2 * (n - 1) / n;
      case "AllGather", "ReduceScatter", "AlltoAll" -> (n - 1) / n;
      default -> 1;
    };
  }
}
