package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.engine.duckdb.EngineSettings;
import io.ncclinspector.report.ingest.RecordSchema;
import io.ncclinspector.report.synthetic.LogFormat;
import io.ncclinspector.report.synthetic.SyntheticConfig;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The export holds every record, with the documented schema, readable by any Parquet reader. */
class ParquetExportTest {
  @TempDir
  Path tmp;

  private DuckDbEngine reader() throws Exception {
    return DuckDbEngine.open(new EngineSettings(1, null, tmp.resolve("reader")));
  }

  @Test
  void schemaIsTheDocumentedOneAndEveryRecordIsThere() throws Exception {
    var gen = TestSupport.generate(SyntheticConfig.builder(tmp.resolve("logs")).iterations(30)
        .build());
    ReportResult r = TestSupport.report(tmp.resolve("out"), tmp.resolve("logs").toString());
    try (DuckDbEngine e = reader()) {
      List<String[]> schema = e.query("DESCRIBE SELECT * FROM " + TestSupport.exportParts(r),
          q -> new String[] {q.getString("column_name"), q.getString("column_type")});
      assertEquals(RecordSchema.COLUMNS.size(), schema.size());
      for (int i = 0; i < schema.size(); i++) {
        assertEquals(RecordSchema.COLUMNS.get(i).name(), schema.get(i)[0]);
        assertEquals(RecordSchema.COLUMNS.get(i).type(), schema.get(i)[1],
            RecordSchema.COLUMNS.get(i).name());
      }
      assertEquals(gen.records(), e.query("SELECT count(*) FROM " + TestSupport.exportParts(r),
          q -> q.getLong(1)).get(0));
      // Written as documented: LZ4_RAW, the version 1 encodings only (Spark's vectorized reader
      // refuses BYTE_STREAM_SPLIT, which version 2 gives doubles).
      String metadata = "parquet_metadata(" + DuckDbEngine.literal(r.recordsDirectory()
          .resolve("*.parquet").toString()) + ")";
      assertEquals(List.of("LZ4_RAW"), e.query("SELECT DISTINCT compression FROM " + metadata,
          q -> q.getString(1)));
      assertEquals(List.of(), e.query("SELECT DISTINCT encodings FROM " + metadata
          + " WHERE encodings LIKE '%DELTA%' OR encodings LIKE '%BYTE_STREAM_SPLIT%'",
          q -> q.getString(1)));
      // Our fields arrive intact: nanosecond times, GPU start, tags, producer.
      Object[] row = e.query("SELECT producer, exec_time_ns, exec_us, gpu_start_ns, phase, step,"
          + " algo, comm_type, excluded_reason, source_file FROM " + TestSupport.exportParts(r)
          + " WHERE kind = 'coll' AND comm_name = 'world' ORDER BY gpu_start_ns LIMIT 1",
          q -> new Object[] {q.getString(1), q.getLong(2), q.getDouble(3), q.getLong(4),
              q.getString(5), q.getLong(6), q.getString(7), q.getString(8), q.getString(9),
              q.getString(10)}).get(0);
      assertEquals("nccl-inspector-jvm", row[0]);
      assertEquals((Long) row[1] / 1000.0, (Double) row[2], 1e-9);
      assertTrue((Long) row[3] > 1_700_000_000_000_000_000L);
      assertEquals("optimizer", row[4]);
      assertEquals(0L, row[5]);
      assertEquals("mixed", row[7]);
      assertNull(row[8]);
      assertTrue(((String) row[9]).startsWith(tmp.resolve("logs").toString()));
    }
  }

  @Test
  void referenceUint8SizesAreKeptExactlyButFlagged(@TempDir Path logs) throws Exception {
    TestSupport.generate(SyntheticConfig.builder(logs).nodes(1).gpusPerNode(2).iterations(200)
        .format(LogFormat.REFERENCE).uint8Probability(0.25).seed(5).build());
    ReportResult r = TestSupport.report(tmp.resolve("out"), logs.toString());
    long invalid = r.data().overview().excluded().getOrDefault("invalid_size", 0L);
    assertTrue(invalid > 0);
    try (DuckDbEngine e = reader()) {
      List<Object[]> rows = e.query("SELECT msg_size_bytes, msg_size_raw, excluded_reason,"
          + " producer, exec_time_ns FROM " + TestSupport.exportParts(r) + " WHERE msg_size_raw > 1e18",
          q -> new Object[] {q.getObject(1), q.getBigDecimal(2), q.getString(3), q.getString(4),
              q.getObject(5)});
      assertEquals(invalid, rows.size());
      for (Object[] row : rows) {
        assertNull(row[0], "no made-up size");
        // 2^64 minus the element count: the reference's size of an "Unknown" (-1 byte) type.
        BigDecimal twoTo64 = new BigDecimal("18446744073709551616");
        BigDecimal count = twoTo64.subtract((BigDecimal) row[1]);
        assertTrue(count.signum() > 0 && count.compareTo(BigDecimal.valueOf(1L << 28)) <= 0,
            row[1].toString());
        assertEquals("invalid_size", row[2]);
        assertEquals("nccl-inspector", row[3]);
        assertNull(row[4]);
      }
      // The figures never see them: no bus bandwidth in the terabytes per second.
      assertTrue(r.data().classes().stream().allMatch(c -> c.busbwMaxGbs() < 1e4));
    }
  }

  @Test
  void pointToPointTimesOfAGroupsKernelStayOutOfTheFigures(@TempDir Path logs) throws Exception {
    TestSupport.generate(SyntheticConfig.builder(logs).iterations(20).build());
    String timedByChannels = "\"p2p_timing_source\":\"kernel_gpu\"";
    int changed = 0;
    try (var files = Files.walk(logs)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        StringBuilder text = new StringBuilder();
        for (String line : Files.readAllLines(f)) {
          if (changed < 12 && line.contains(timedByChannels)) {
            line = line.replace(timedByChannels, "\"p2p_timing_source\":\"kernel_cupti_group\"");
            changed++;
          }
          text.append(line).append('\n');
        }
        Files.writeString(f, text);
      }
    }
    assertEquals(12, changed, "the synthetic logs have point-to-point records");
    ReportResult r = TestSupport.report(tmp.resolve("out"), logs.toString());
    assertEquals(12L, r.data().overview().excluded().get("group_time"));
    try (DuckDbEngine e = reader()) {
      assertEquals(12L, e.query("SELECT count(*) FROM " + TestSupport.exportParts(r) + " WHERE timing_source = 'kernel_cupti_group'"
          + " AND excluded_reason = 'group_time'", q -> q.getLong(1)).get(0));
    }
  }

  @Test
  void aSecondRunReplacesTheFirstRunsParts() throws Exception {
    TestSupport.generate(SyntheticConfig.builder(tmp.resolve("logs")).nodes(1).gpusPerNode(2)
        .iterations(10).build());
    ReportResult first = TestSupport.report(tmp.resolve("out"), tmp.resolve("logs").toString());
    Path stray = first.recordsDirectory().resolve("part-99999-000.parquet");
    Files.copy(first.data().imported().parts().get(0), stray);
    Path mine = first.outputDirectory().resolve("my-notes.txt");
    Files.writeString(mine, "keep me");
    ReportResult second = TestSupport.report(tmp.resolve("out"), tmp.resolve("logs").toString());
    assertFalse(Files.exists(stray), "old parts are removed, so readers see one run");
    assertTrue(Files.exists(mine), "files that are not the report's are left alone");
    assertEquals(first.data().overview().records(), second.data().overview().records());
  }
}
