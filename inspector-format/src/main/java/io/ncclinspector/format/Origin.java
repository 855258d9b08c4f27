package io.ncclinspector.format;

/** Which producer writes a field. */
public enum Origin {
  /** NVIDIA's Inspector (format v4.0) and this project, with the same name and meaning. */
  REFERENCE,
  /** Only this project (added after the reference's fields, with the same prefix). */
  INSPECTOR_JVM
}
