package io.ncclinspector.djl;

/** Which DJL batch callback a {@link BatchCommunication} was taken at. */
public enum BatchKind {
  /** {@code onTrainingBatch}. */
  TRAIN(""),
  /** {@code onValidationBatch}. */
  VALIDATE("validate_");

  private final String metricInfix;

  BatchKind(String metricInfix) {
    this.metricInfix = metricInfix;
  }

  /** What goes between the metric prefix and the metric's base name ({@code "validate_"} or nothing). */
  public String metricInfix() {
    return metricInfix;
  }
}
