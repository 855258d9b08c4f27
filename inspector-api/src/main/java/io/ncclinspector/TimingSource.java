package io.ncclinspector;

/** Which clock an operation's execution time comes from (the reference Inspector's names). */
public enum TimingSource {
  /**
   * No time: every kernel channel carried the timestamps of other work (NCCL's kernel-channel
   * counter desync, {@link Quarantine#KERNEL_CHANNEL_DESYNC}); the execution time and bandwidths
   * are 0 and mean nothing.
   */
  NONE("none"),
  /**
   * GPU timestamps of every kernel channel that ran in step (the precise case); see
   * {@link Channels#desynced()} for channels left out.
   */
  KERNEL_GPU("kernel_gpu"),
  /** CPU times of the kernel-channel callbacks, for channels without usable GPU timestamps. */
  KERNEL_CPU("kernel_cpu"),
  /** CPU times of the operation's own events: no usable kernel channel timing. */
  COLLECTIVE_CPU("collective_cpu"),
  /**
   * A copy-engine collective (NCCL profiler interface v6): CPU times of its start and stop
   * events; NCCL gives no GPU timestamps for copy-engine work.
   */
  CE_CPU("ce_cpu"),
  /**
   * The operation's kernel as CUPTI's activity records saw it run (start to end), where NCCL's
   * kernel channels could not time it (their readings overwritten or never delivered) and the
   * kernel ran this operation alone. Opt-in ({@code kernelRecords}); see
   * {@link TimeRecovery.Method#KERNEL_RECORD}.
   */
  KERNEL_CUPTI("kernel_cupti"),
  /**
   * The kernel, as CUPTI's activity records saw it run, that ran this point-to-point operation
   * together with the other sends and receives of its group (an AlltoAll's, a send/receive
   * exchange's), where NCCL's kernel channels gave the operation no GPU time: the group's GPU time,
   * an upper bound on this operation's own. Its bandwidths are lower bounds. Opt-in
   * ({@code kernelRecords}); see {@link TimeRecovery.Method#KERNEL_RECORD_GROUP}.
   */
  KERNEL_CUPTI_GROUP("kernel_cupti_group");

  private final String jsonName;

  TimingSource(String jsonName) {
    this.jsonName = jsonName;
  }

  /** Whether a record with this source has an execution time at all. */
  public boolean timed() {
    return this != NONE;
  }

  /**
   * Whether the time is the operation's own ({@code false} for {@link #KERNEL_CUPTI_GROUP}: its
   * group's kernel, an upper bound on its own).
   */
  public boolean ownTime() {
    return this != KERNEL_CUPTI_GROUP;
  }

  /** The name used in JSON output, e.g. {@code kernel_gpu}. */
  public String jsonName() {
    return jsonName;
  }
}
