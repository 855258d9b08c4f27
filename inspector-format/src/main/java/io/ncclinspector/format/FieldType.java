package io.ncclinspector.format;

/** How a field's value is written in JSON. */
public enum FieldType {
  STRING,
  /** A 32-bit signed integer. */
  INT,
  /** A 64-bit signed integer. */
  LONG,
  /**
   * A 64-bit unsigned integer: message sizes, which NVIDIA's Inspector can write near 2^64 (a small
   * negative size printed unsigned); a reader needs more than 64 signed bits for them.
   */
  UNSIGNED_LONG,
  DOUBLE,
  BOOLEAN,
  /** An array of strings. */
  STRING_LIST,
  /** A JSON object (its fields are described apart: {@link TraceField}). */
  OBJECT,
  /** An array of JSON objects (its fields are described apart: {@link KernelEventField}). */
  OBJECT_LIST
}
