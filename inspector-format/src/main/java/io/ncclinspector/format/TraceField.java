package io.ncclinspector.format;

/**
 * The fields of the verbose event traces, {@link PerfField#EVENT_TRACE_SN} (event sequence
 * numbers) and {@link PerfField#EVENT_TRACE_TS} (wall-clock microseconds). Named with the kind's
 * prefix ({@code coll_start_sn}) except {@code kernel_events}, the per-channel list
 * ({@link KernelEventField}).
 */
public enum TraceField {
  START_SN("_start_sn", FieldType.LONG, Origin.REFERENCE, PerfField.EVENT_TRACE_SN),
  STOP_SN("_stop_sn", FieldType.LONG, Origin.REFERENCE, PerfField.EVENT_TRACE_SN),
  START_TS("_start_ts", FieldType.LONG, Origin.REFERENCE, PerfField.EVENT_TRACE_TS),
  STOP_TS("_stop_ts", FieldType.LONG, Origin.REFERENCE, PerfField.EVENT_TRACE_TS),
  /** When the kernel was launched (written when known). */
  LAUNCH_TS("_launch_ts", FieldType.LONG, Origin.INSPECTOR_JVM, PerfField.EVENT_TRACE_TS),
  /** The channels, in both traces. */
  KERNEL_EVENTS(null, FieldType.OBJECT_LIST, Origin.REFERENCE, null),
  /** The proxy operations of the network breakdown ({@link ProxyOpField}), where NCCL reported them. */
  PROXY_OPS(null, FieldType.OBJECT_LIST, Origin.INSPECTOR_JVM, PerfField.EVENT_TRACE_TS);

  private final String suffix;
  private final FieldType type;
  private final Origin origin;
  private final PerfField trace; /* null: in both */

  TraceField(String suffix, FieldType type, Origin origin, PerfField trace) {
    this.suffix = suffix;
    this.type = type;
    this.origin = origin;
    this.trace = trace;
  }

  /** The field's name in a record of this kind. */
  public String jsonName(RecordKind kind) {
    return suffix == null ? name().toLowerCase(java.util.Locale.ROOT) : kind.prefix() + suffix;
  }

  /** Whether the trace object has this field. */
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
