package io.ncclinspector.format;

/** The fields of {@code header}: the communicator, as the writing rank sees it. */
public enum HeaderField implements RecordField {
  /** The communicator id: {@code 0x} and 16 hex digits here, 14 in the reference. */
  ID("id", FieldType.STRING),
  COMM_NAME("comm_name", FieldType.STRING),
  RANK("rank", FieldType.INT),
  N_RANKS("n_ranks", FieldType.INT),
  NNODES("nnodes", FieldType.INT);

  /** The object's name. */
  public static final String OBJECT = "header";

  private final String jsonName;
  private final FieldType type;

  HeaderField(String jsonName, FieldType type) {
    this.jsonName = jsonName;
    this.type = type;
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
    return Origin.REFERENCE;
  }
}
