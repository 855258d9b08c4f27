package io.ncclinspector.report.ingest.parquet;

/**
 * One flat column of a file {@link ParquetFileWriter} writes.
 *
 * @param name the column's name
 * @param kind what it holds
 * @param required whether every row has a value (else the column has definition levels)
 */
public record ColumnSpec(String name, Kind kind, boolean required) {
  /** What a column holds, and how DuckDB reads it back. */
  public enum Kind {
    /** BOOLEAN. */
    BOOLEAN(0, -1),
    /** INTEGER (Parquet INT32). */
    INT32(1, -1),
    /** BIGINT (Parquet INT64). */
    INT64(2, -1),
    /** DOUBLE. */
    DOUBLE(5, -1),
    /** VARCHAR (BYTE_ARRAY annotated as UTF-8 text). */
    STRING(6, -1),
    /** A 128-bit integer, read back as DECIMAL(38,0) (16-byte big-endian two's complement). */
    DECIMAL38(7, 16);

    final int physical;
    final int length;

    Kind(int physical, int length) {
      this.physical = physical;
      this.length = length;
    }
  }
}
