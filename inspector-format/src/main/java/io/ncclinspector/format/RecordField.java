package io.ncclinspector.format;

/**
 * A field of a record line's top-level objects: of {@code header} ({@link HeaderField}), of
 * {@code metadata} ({@link MetadataField}) or of the perf object ({@link PerfField}).
 */
public sealed interface RecordField permits HeaderField, MetadataField, PerfField {
  /** The field's JSON type. */
  FieldType type();

  /** Who writes it. */
  Origin origin();

  /** Whether a record of this kind has the field (header and metadata fields: both kinds). */
  default boolean appliesTo(RecordKind kind) {
    return true;
  }

  /** The field's name in a record of this kind. */
  String jsonName(RecordKind kind);

  /** The top-level object the field is in, in a record of this kind. */
  String objectName(RecordKind kind);
}
