package io.ncclinspector;

import java.util.Objects;

/**
 * How an operation's GPU time was obtained, where NCCL's kernel-channel counters went out of step
 * (a send/receive to the own rank, an empty P2P part): each channel reads its own work item
 * ({@link Method#DIRECT}), or gets its own item's timestamps handed on by the later operation that
 * NCCL gave them to ({@link Method#RECOVERED}), or nothing could be trusted
 * ({@link Method#WITHHELD}). docs/output.md, "How a GPU time was obtained".
 *
 * @param method how the time was obtained
 * @param channelsRecovered channels timed by timestamps handed on by a later operation
 * @param maxChannelLag with {@code RECOVERED}: the most work items without a host count ahead of
 *     its own on one of its channels
 * @param withheldReason why channels were left out (for the first one), {@code "none"} if none was
 * @param recoveryOffReason why recovery was off for its communicator, {@code "none"} if it was on
 */
public record TimeRecovery(Method method, int channelsRecovered, int maxChannelLag, String withheldReason,
    String recoveryOffReason) {
  /** How a time was obtained. */
  public enum Method {
    /** Not a kernel-channel time (CPU, copy-engine, or no channels). */
    NOT_KERNEL("not_kernel"),
    /** Every timed channel read its own work item. */
    DIRECT("direct"),
    /** At least one channel's time was handed on by a later operation. */
    RECOVERED("recovered"),
    /** Every channel was left out: no time. */
    WITHHELD("withheld"),
    /**
     * NCCL's channels gave no complete time (withheld, or a lower bound from the channels in step):
     * the time is its kernel's, from CUPTI's kernel records ({@link TimingSource#KERNEL_CUPTI});
     * {@code withheldReason} still says why the channels were left out.
     */
    KERNEL_RECORD("kernel_record"),
    /**
     * A point-to-point operation without a GPU time from its channels shared its kernel with the
     * other operations of its group: the time is that kernel's, from CUPTI's kernel records
     * ({@link TimingSource#KERNEL_CUPTI_GROUP}), the group's time and an upper bound on its own.
     */
    KERNEL_RECORD_GROUP("kernel_record_group");

    private final String jsonName;

    Method(String jsonName) {
      this.jsonName = jsonName;
    }

    /** The name in JSON output ({@code *_time_recovery}). */
    public String jsonName() {
      return jsonName;
    }
  }

  /** No recovery information (CPU timing, records from before recovery). */
  public static final TimeRecovery NONE = new TimeRecovery(Method.NOT_KERNEL, 0, 0, "none", "none");

  public TimeRecovery {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(withheldReason, "withheldReason");
    Objects.requireNonNull(recoveryOffReason, "recoveryOffReason");
  }
}
