package io.ncclinspector.format;

/** The fields of {@code metadata}: the writing process and the format. */
public enum MetadataField implements RecordField {
  FORMAT_VERSION("inspector_output_format_version", FieldType.STRING, Origin.REFERENCE),
  GIT_REV("git_rev", FieldType.STRING, Origin.REFERENCE),
  REC_MECHANISM("rec_mechanism", FieldType.STRING, Origin.REFERENCE),
  /** Wall-clock microseconds when the line was written. */
  DUMP_TIMESTAMP_US("dump_timestamp_us", FieldType.LONG, Origin.REFERENCE),
  HOSTNAME("hostname", FieldType.STRING, Origin.REFERENCE),
  PID("pid", FieldType.LONG, Origin.REFERENCE),
  /** The profiler interface version NCCL negotiated with the plugin. */
  PROFILER_INTERFACE_VERSION("profiler_interface_version", FieldType.INT, Origin.INSPECTOR_JVM),
  /** The NCCL release that ran the communicator ({@code 2.30.7}); left out when NCCL did not say. */
  NCCL_VERSION("nccl_version", FieldType.STRING, Origin.INSPECTOR_JVM);

  /** The object's name. */
  public static final String OBJECT = "metadata";
  /** The value of {@link #FORMAT_VERSION} both producers write. */
  public static final String FORMAT_VERSION_VALUE = "v4.0";
  /** The value of {@link #REC_MECHANISM} both producers write. */
  public static final String REC_MECHANISM_VALUE = "nccl_profiler_interface";

  private final String jsonName;
  private final FieldType type;
  private final Origin origin;

  MetadataField(String jsonName, FieldType type, Origin origin) {
    this.jsonName = jsonName;
    this.type = type;
    this.origin = origin;
  }

  /** The field's name. */
  public String jsonName() {
    return jsonName;
  }

  @Override
  public String jsonName(RecordKind kind) {
    return jsonName;
  }

  @Override
  public String objectName(RecordKind kind) {
    return OBJECT;
  }

  @Override
  public FieldType type() {
    return type;
  }

  @Override
  public Origin origin() {
    return origin;
  }
}
