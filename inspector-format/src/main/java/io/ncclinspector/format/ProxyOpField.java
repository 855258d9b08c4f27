package io.ncclinspector.format;

/**
 * The fields of one proxy operation in a verbose trace's {@code proxy_ops} list
 * ({@link TraceField#PROXY_OPS}): the chunks of one channel to or from one peer. Times are
 * wall-clock microseconds; a time that did not happen is left out.
 */
public enum ProxyOpField {
  CHANNEL_ID("channel_id", FieldType.INT),
  PEER("peer", FieldType.INT),
  SEND("send", FieldType.BOOLEAN),
  STEPS("steps", FieldType.LONG),
  STEPS_DONE("steps_done", FieldType.INT),
  ANNOUNCED_STEPS("announced_steps", FieldType.INT),
  BYTES("bytes", FieldType.LONG),
  POST_TS("post_ts", FieldType.LONG),
  /** Send: first chunk ready on the GPU; receive: first chunk arrived. */
  READY_TS("ready_ts", FieldType.LONG),
  /** Receive: last chunk arrived. */
  LAST_ARRIVAL_TS("last_arrival_ts", FieldType.LONG),
  DONE_TS("done_ts", FieldType.LONG),
  /**
   * Its last steps ({@link ProxyStepField}), oldest first: at most eight, the steps the core
   * keeps in flight (NCCL's NCCL_STEPS).
   */
  STEP_DETAIL("step_detail", FieldType.OBJECT_LIST),
  /** True when it had more steps than {@link #STEP_DETAIL} shows (left out otherwise). */
  STEPS_TRUNCATED("steps_truncated", FieldType.BOOLEAN);

  private final String jsonName;
  private final FieldType type;

  ProxyOpField(String jsonName, FieldType type) {
    this.jsonName = jsonName;
    this.type = type;
  }

  public String jsonName() {
    return jsonName;
  }

  public FieldType type() {
    return type;
  }
}
