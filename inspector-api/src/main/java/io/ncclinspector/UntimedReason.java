package io.ncclinspector;

/** Why an operation that ran carries no time ({@link Timing#untimedReason()}). */
public enum UntimedReason {
  /** It has a time, or its lack is explained by its quarantine reason. */
  NONE("none"),
  /**
   * NCCL 2.29.2 and later route ncclBroadcast through their AllGatherV path, which emits no
   * operation or kernel event (NCCL PR 2368, issue 2278). {@code NCCL_ALLGATHERV_ENABLE=0}, which
   * {@code enable()} sets unless told not to, avoids it.
   */
  NCCL_BROADCAST_ALLGATHERV("nccl_broadcast_allgatherv"),
  /**
   * NCCL reported the call but never an operation event for it (symmetric-kernel collectives,
   * and any path a release does not instrument).
   */
  NCCL_NO_OPERATION_EVENT("nccl_no_operation_event");

  private final String jsonName;

  UntimedReason(String jsonName) {
    this.jsonName = jsonName;
  }

  /** The reason's name in JSON output ({@code coll_untimed_reason}). */
  public String jsonName() {
    return jsonName;
  }
}
