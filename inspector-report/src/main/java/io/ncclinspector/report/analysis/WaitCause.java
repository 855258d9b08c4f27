package io.ncclinspector.report.analysis;

/**
 * Why the other ranks waited for a rank, as the network breakdown tells it. At an operation where
 * a rank r waited notably long for its slowest peer p, p's record of the same operation says
 * whether p's own GPU was late with its first chunk: if p's wait for its GPU exceeded p's usual by
 * at least half of r's excess wait, p's GPU was late ({@link #OWN_GPU_LATE}); otherwise p itself
 * reached the operation late ({@link #ARRIVED_LATE}: its host called NCCL late, or its proxy or
 * the network delayed the data). A rank's verdict is the class of more than half of its classified
 * notable waits, {@link #MIXED} when neither has that many.
 */
public enum WaitCause {
  OWN_GPU_LATE("own_gpu_late", "own GPU late"),
  ARRIVED_LATE("arrived_late", "arrived late"),
  MIXED("mixed", "mixed"),
  /** Named slowest peer, but never by a notable wait: the usual order of a ring or tree. */
  NO_NOTABLE_WAIT("no_notable_wait", "no notable wait"),
  /** Notable waits, none of whose operations this rank's logs have. */
  UNKNOWN("unknown", "unknown (its log is missing)");

  private final String label;
  private final String text;

  WaitCause(String label, String text) {
    this.label = label;
    this.text = text;
  }

  /** The name in files and SQL. */
  public String label() {
    return label;
  }

  /** The words for the HTML report and the console. */
  public String text() {
    return text;
  }

  /** The verdict for a rank from the classes of its notable waits. */
  public static WaitCause verdict(long notable, long ownGpuLate, long arrivedLate) {
    long classified = ownGpuLate + arrivedLate;
    if (notable == 0) {
      return NO_NOTABLE_WAIT;
    }
    if (classified == 0) {
      return UNKNOWN;
    }
    if (2 * ownGpuLate > classified) {
      return OWN_GPU_LATE;
    }
    return 2 * arrivedLate > classified ? ARRIVED_LATE : MIXED;
  }

  /** The cause with this label. */
  public static WaitCause of(String label) {
    for (WaitCause c : values()) {
      if (c.label.equals(label)) {
        return c;
      }
    }
    throw new IllegalArgumentException("no wait cause " + label);
  }
}
