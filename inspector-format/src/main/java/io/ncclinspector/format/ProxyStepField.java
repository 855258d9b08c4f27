package io.ncclinspector.format;

/**
 * The fields of one step in a proxy operation's {@code step_detail} list
 * ({@link ProxyOpField#STEP_DETAIL}, verbose mode). The phases are durations in ns, 0 for one the
 * step did not reach (saturated at 4294967295, 4.29 s).
 */
public enum ProxyStepField {
  /** NCCL's step number. */
  STEP("step", FieldType.LONG),
  /** How far it got: {@code started}, {@code posted}, {@code ready}, {@code moved}, {@code done}. */
  STATE("state", FieldType.STRING),
  /** Wall-clock µs of its start. */
  START_TS("start_ts", FieldType.LONG),
  /** Start to posted: the proxy thread's own time. */
  POST_NS("post_ns", FieldType.LONG),
  /** Send: posted to ready (the own GPU's data); receive: posted to arrived (the peer's data). */
  WAIT_NS("wait_ns", FieldType.LONG),
  /** Send: ready to handed to the network (the peer's credit); receive: arrived to flushed. */
  MOVE_NS("move_ns", FieldType.LONG),
  /** Send: on the network until done; receive: flushed until the GPU consumed it. */
  DONE_NS("done_ns", FieldType.LONG);

  private final String jsonName;
  private final FieldType type;

  ProxyStepField(String jsonName, FieldType type) {
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
