package io.ncclinspector.report.input;

/** How a log file is stored, decided from its first bytes rather than its name. */
public enum Compression {
  NONE("uncompressed"),
  GZIP("gzip");

  private final String duckDbName;

  Compression(String duckDbName) {
    this.duckDbName = duckDbName;
  }

  /** The value of DuckDB's {@code compression} option for such files. */
  public String duckDbName() {
    return duckDbName;
  }
}
