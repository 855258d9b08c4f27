package io.ncclinspector.report.model;

/**
 * The communication class of a communicator, decided as the reference exporter decides it
 * ({@code get_comm_type}), from the header fields only: no transport information is used, so
 * "NVLink-only" means "all ranks on one node" and "HCA-only" means "one rank per node".
 */
public enum CommType {
  SINGLE_RANK("single-rank"),
  NVLINK_ONLY("nvlink-only"),
  HCA_ONLY("hca-only"),
  MIXED("mixed"),
  /**
   * Not in the reference: a rank or node count below 1 (profiler interface v3 does not give the
   * rank count). The reference would call these "mixed".
   */
  UNKNOWN("unknown");

  private final String label;

  CommType(String label) {
    this.label = label;
  }

  /** The label in every output, as the reference spells it. */
  public String label() {
    return label;
  }

  /** The reference's rules, in its order. */
  public static CommType classify(int nRanks, int nNodes) {
    if (nRanks < 1 || nNodes < 1) {
      return UNKNOWN;
    }
    if (nRanks == 1) {
      return SINGLE_RANK;
    }
    if (nNodes == 1) {
      return NVLINK_ONLY;
    }
    if (nRanks == nNodes) {
      return HCA_ONLY;
    }
    return MIXED;
  }

  /** The same rules as a SQL expression over two integer expressions. */
  public static String sql(String nRanks, String nNodes) {
    return "CASE WHEN " + nRanks + " < 1 OR " + nNodes + " < 1 THEN '" + UNKNOWN.label + "'"
        + " WHEN " + nRanks + " = 1 THEN '" + SINGLE_RANK.label + "'"
        + " WHEN " + nNodes + " = 1 THEN '" + NVLINK_ONLY.label + "'"
        + " WHEN " + nRanks + " = " + nNodes + " THEN '" + HCA_ONLY.label + "'"
        + " ELSE '" + MIXED.label + "' END";
  }

  public static CommType fromLabel(String label) {
    for (CommType t : values()) {
      if (t.label.equals(label)) {
        return t;
      }
    }
    throw new IllegalArgumentException("unknown communication class '" + label + "'");
  }
}
