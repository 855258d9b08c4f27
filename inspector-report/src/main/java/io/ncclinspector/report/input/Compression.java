package io.ncclinspector.report.input;

/** How a log file is stored, decided from its first bytes rather than its name. */
public enum Compression {
  NONE("uncompressed"),
  GZIP("gzip"),
  /** Not a log: the report's Parquet export (or a file claiming to be), read back as records. */
  PARQUET("parquet");

  private final String duckDbName;

  Compression(String duckDbName) {
    this.duckDbName = duckDbName;
  }

  /** The value of DuckDB's {@code compression} option for such files. */
  public String duckDbName() {
    return duckDbName;
  }
}
