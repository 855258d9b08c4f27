package io.ncclinspector.internal;

/**
 * What the close of an inspector without CUPTI kernel records tells a user whose operations NCCL's
 * kernel channels left without a GPU time: how many, why, and the setting that would time them.
 */
final class KernelRecordsAdvice {
  /** Operations without a GPU time before the advice is given (a few are normal: a last operation). */
  static final long AT_LEAST = 32;

  private KernelRecordsAdvice() {}

  /**
   * The advice, or null: given when at least {@link #AT_LEAST} operations, and a tenth of all,
   * were withheld for kernel channels out of step ({@code KERNEL_CHANNEL_DESYNC}).
   *
   * @param withheld operations quarantined for kernel channels out of step
   * @param operations operation records decoded
   * @param whyNot why kernel records are not running ({@code null}: not asked for)
   */
  static String advice(long withheld, long operations, String whyNot) {
    if (withheld < AT_LEAST || withheld * 10 < operations) {
      return null;
    }
    String remedy = whyNot == null
        ? "CUPTI's kernel records would time them (NCCL_INSPECTOR_KERNEL_RECORDS=1, kernelRecords(true); they add"
            + " about 1-3 us to every kernel launch of the process, docs/output.md#kernel-times-from-cupti)"
        : "CUPTI's kernel records, which would time them, were asked for but are not running: " + whyNot;
    return withheld + " of " + operations + " operations got no GPU time: NCCL's kernel channels carried"
        + " other work items' timestamps (after sends or receives to the own rank, on NCCL releases and"
        + " transports with few channels); " + remedy;
  }
}
