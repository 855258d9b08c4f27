package io.ncclinspector.report.ingest.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files of every column kind, with and without nulls, across row groups, read back by DuckDB. */
class ParquetFileWriterTest {
  @TempDir Path dir;

  private static final List<ColumnSpec> SPECS = List.of(
      new ColumnSpec("b", ColumnSpec.Kind.BOOLEAN, false),
      new ColumnSpec("i", ColumnSpec.Kind.INT32, false),
      new ColumnSpec("l", ColumnSpec.Kind.INT64, false),
      new ColumnSpec("d", ColumnSpec.Kind.DOUBLE, false),
      new ColumnSpec("s", ColumnSpec.Kind.STRING, false),
      new ColumnSpec("h", ColumnSpec.Kind.DECIMAL38, false),
      new ColumnSpec("req", ColumnSpec.Kind.INT64, true),
      new ColumnSpec("never", ColumnSpec.Kind.STRING, false),
      new ColumnSpec("always", ColumnSpec.Kind.BOOLEAN, false));

  @Test
  void duckDbReadsBackEveryValue() throws Exception {
    for (int rows : new int[] {0, 1, 7, 8, 9, 1000, 2500}) {
      roundTrip(rows, 64, new Random(rows));
      roundTrip(rows, 1000, new Random(rows + 1));
    }
  }

  private void roundTrip(int rows, int groupRows, Random random) throws Exception {
    Path file = dir.resolve("t-" + rows + "-" + groupRows + ".parquet");
    List<String> expected = new ArrayList<>();
    try (ParquetFileWriter w = new ParquetFileWriter(file, SPECS, groupRows)) {
      for (int r = 0; r < rows; r++) {
        StringBuilder line = new StringBuilder();
        boolean nulls = random.nextInt(4) == 0;
        Boolean b = nulls ? null : random.nextBoolean();
        Integer i = nulls ? null : random.nextInt();
        Long l = nulls ? null : random.nextLong();
        Double d = nulls ? null : random.nextGaussian() * 1e6;
        String s = nulls ? null : "t" + random.nextInt(1000) + "é\u4e2d".repeat(random.nextInt(3));
        BigInteger h = nulls ? null : random.nextBoolean()
            ? BigInteger.valueOf(random.nextLong())
            : new BigInteger(64, random); // up to 2^64 - 1
        if (b == null) {
          w.column(0).addNull();
          w.column(1).addNull();
          w.column(2).addNull();
          w.column(3).addNull();
          w.column(4).addNull();
          w.column(5).addNull();
        } else {
          w.column(0).addLong(b ? 1 : 0);
          w.column(1).addLong(i);
          w.column(2).addLong(l);
          w.column(3).addDouble(d);
          byte[] t = s.getBytes(StandardCharsets.UTF_8);
          w.column(4).addString(t, 0, t.length);
          w.column(5).addHuge(h.shiftRight(64).longValue(), h.longValue());
        }
        w.column(6).addLong(r);
        w.column(7).addNull();
        w.column(8).addLong(1);
        w.endRow();
        line.append(b).append('|').append(i).append('|').append(l).append('|')
            .append(d == null ? null : Double.doubleToLongBits(d)).append('|').append(s)
            .append('|').append(h).append('|').append(r).append("|null|true");
        expected.add(line.toString());
      }
    }
    List<String> actual = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT b, i, l, d, s, CAST(h AS VARCHAR), req, never,"
            + " always, typeof(h) FROM read_parquet('" + file + "') ORDER BY req")) {
      while (rs.next()) {
        assertEquals("DECIMAL(38,0)", rs.getString(10));
        Object d = rs.getObject(4);
        actual.add(rs.getObject(1) + "|" + rs.getObject(2) + "|" + rs.getObject(3) + "|"
            + (d == null ? null : Double.doubleToLongBits((Double) d)) + "|" + rs.getString(5)
            + "|" + rs.getString(6) + "|" + rs.getLong(7) + "|" + rs.getString(8) + "|"
            + rs.getObject(9));
      }
    }
    assertEquals(expected, actual);
  }
}
