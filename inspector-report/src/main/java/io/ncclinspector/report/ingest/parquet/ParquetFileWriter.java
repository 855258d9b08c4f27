package io.ncclinspector.report.ingest.parquet;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a Parquet file of flat columns, uncompressed and PLAIN-encoded, one data page per column
 * per row group: the simplest file DuckDB reads at memory speed. It is the import's hand-over
 * from the report's own JSON reading to DuckDB, not an output (the export is DuckDB's). Fill the
 * {@link #columns}, one value or null per column per row, call {@link #endRow} after each row;
 * a full row group is written at once.
 *
 * <p>The format: the magic {@code PAR1}, the column chunks (a Thrift page header and the page's
 * bytes each), the footer (Thrift compact {@code FileMetaData}), its length, {@code PAR1}.
 */
public final class ParquetFileWriter implements AutoCloseable {
  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
  private static final int PLAIN = 0;
  private static final int RLE = 3;

  private record Chunk(long offset, long bytes, int rows) {}

  private final OutputStream out;
  private final List<ColumnSpec> specs;
  private final ColumnBuffer[] columns;
  private final int groupRows;
  private final List<List<Chunk>> groups = new ArrayList<>();
  private final Bytes page = new Bytes(1 << 20);
  private final Bytes header = new Bytes(64);
  private long offset;
  private int rows;
  private long totalRows;
  private boolean closed;

  /** A new file at {@code path}, of these columns, {@code groupRows} rows to a row group. */
  public ParquetFileWriter(Path path, List<ColumnSpec> specs, int groupRows) throws IOException {
    this.specs = List.copyOf(specs);
    this.groupRows = groupRows;
    this.columns = new ColumnBuffer[specs.size()];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = new ColumnBuffer(specs.get(i), groupRows);
    }
    this.out = Files.newOutputStream(path);
    write(MAGIC, MAGIC.length);
  }

  public ColumnBuffer column(int i) {
    return columns[i];
  }

  public int columnCount() {
    return columns.length;
  }

  /** Rows written or buffered so far. */
  public long rows() {
    return totalRows + rows;
  }

  /** Ends a row: every column must have had one value or null for it. */
  public void endRow() throws IOException {
    rows++;
    if (rows == groupRows) {
      flush();
    }
  }

  private void write(byte[] b, int length) throws IOException {
    out.write(b, 0, length);
    offset += length;
  }

  private void flush() throws IOException {
    if (rows == 0) {
      return;
    }
    List<Chunk> chunks = new ArrayList<>(columns.length);
    for (ColumnBuffer c : columns) {
      if (c.rows() != rows) {
        throw new IllegalStateException("column " + c.spec.name() + " has " + c.rows()
            + " values for " + rows + " rows");
      }
      page.clear();
      c.encode(page);
      header.clear();
      new Compact(header).i32(1, 0) // DATA_PAGE
          .i32(2, page.size()).i32(3, page.size())
          .struct(5).i32(1, rows).i32(2, PLAIN).i32(3, RLE).i32(4, RLE).end()
          .end();
      long at = offset;
      write(header.array(), header.size());
      write(page.array(), page.size());
      chunks.add(new Chunk(at, offset - at, rows));
      c.clear();
    }
    groups.add(chunks);
    totalRows += rows;
    rows = 0;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try (out) {
      flush();
      Bytes footer = new Bytes(4096);
      Compact t = new Compact(footer);
      t.i32(1, 1);
      t.list(2, Compact.STRUCT, specs.size() + 1);
      t.open().string(4, "schema").i32(5, specs.size()).end();
      for (ColumnSpec s : specs) {
        t.open().i32(1, s.kind().physical);
        if (s.kind().length > 0) {
          t.i32(2, s.kind().length);
        }
        t.i32(3, s.required() ? 0 : 1).string(4, s.name());
        if (s.kind() == ColumnSpec.Kind.STRING) {
          t.i32(6, 0).struct(10).struct(1).end().end(); // UTF8; logical STRING
        } else if (s.kind() == ColumnSpec.Kind.DECIMAL38) {
          t.i32(6, 5).i32(7, 0).i32(8, 38) // DECIMAL(38,0)
              .struct(10).struct(5).i32(1, 0).i32(2, 38).end().end();
        }
        t.end();
      }
      t.i64(3, totalRows);
      t.list(4, Compact.STRUCT, groups.size());
      for (List<Chunk> chunks : groups) {
        long bytes = chunks.stream().mapToLong(Chunk::bytes).sum();
        t.open().list(1, Compact.STRUCT, chunks.size());
        for (int i = 0; i < chunks.size(); i++) {
          Chunk c = chunks.get(i);
          ColumnSpec s = specs.get(i);
          t.open().i64(2, c.offset()).struct(3)
              .i32(1, s.kind().physical)
              .list(2, Compact.I32, 2).i32Element(PLAIN).i32Element(RLE)
              .list(3, Compact.BINARY, 1).stringElement(s.name())
              .i32(4, 0) // UNCOMPRESSED
              .i64(5, c.rows()).i64(6, c.bytes()).i64(7, c.bytes()).i64(9, c.offset())
              .end().end();
        }
        t.i64(2, bytes).i64(3, chunks.get(0).rows()).end();
      }
      t.string(6, "nccl-inspector-jvm report import");
      t.end();
      write(footer.array(), footer.size());
      byte[] length = new byte[4];
      int n = footer.size();
      for (int i = 0; i < 4; i++) {
        length[i] = (byte) (n >>> (8 * i));
      }
      write(length, 4);
      write(MAGIC, MAGIC.length);
    }
  }
}
