package io.ncclinspector.format;

/** The fields of one channel in a verbose trace's {@code kernel_events} list ({@link TraceField#KERNEL_EVENTS}). */
public enum KernelEventField {
  CHANNEL_ID("channel_id", FieldType.INT, Origin.REFERENCE, null),
  KERNEL_START_SN("kernel_start_sn", FieldType.LONG, Origin.REFERENCE, PerfField.EVENT_TRACE_SN),
  KERNEL_STOP_SN("kernel_stop_sn", FieldType.LONG, Origin.REFERENCE, PerfField.EVENT_TRACE_SN),
  KERNEL_RECORD_SN("kernel_record_sn", FieldType.LONG, Origin.REFERENCE, PerfField.EVENT_TRACE_SN),
  KERNEL_START_TS("kernel_start_ts", FieldType.LONG, Origin.REFERENCE, PerfField.EVENT_TRACE_TS),
  KERNEL_STOP_TS("kernel_stop_ts", FieldType.LONG, Origin.REFERENCE, PerfField.EVENT_TRACE_TS),
  KERNEL_RECORD_TS("kernel_record_ts", FieldType.LONG, Origin.REFERENCE, PerfField.EVENT_TRACE_TS),
  KERNEL_GPU_START_NS("kernel_gpu_start_ns", FieldType.LONG, Origin.INSPECTOR_JVM, PerfField.EVENT_TRACE_TS),
  KERNEL_GPU_STOP_NS("kernel_gpu_stop_ns", FieldType.LONG, Origin.INSPECTOR_JVM, PerfField.EVENT_TRACE_TS),
  /** Why a channel's GPU times were not used (written only for such a channel). */
  KERNEL_DESYNC("kernel_desync", FieldType.STRING, Origin.INSPECTOR_JVM, PerfField.EVENT_TRACE_TS);

  private final String jsonName;
  private final FieldType type;
  private final Origin origin;
  private final PerfField trace;

  KernelEventField(String jsonName, FieldType type, Origin origin, PerfField trace) {
    this.jsonName = jsonName;
    this.type = type;
    this.origin = origin;
    this.trace = trace;
  }

  public String jsonName() {
    return jsonName;
  }

  /** Whether a channel of this trace object has this field. */
  public boolean in(PerfField traceObject) {
    return trace == null || trace == traceObject;
  }

  public FieldType type() {
    return type;
  }

  public Origin origin() {
    return origin;
  }
}
