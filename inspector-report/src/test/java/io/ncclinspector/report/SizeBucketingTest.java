package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ncclinspector.report.analysis.SizeBucketing;
import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.engine.duckdb.EngineSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SizeBucketingTest {
  @Test
  void powerOfTwoBucketsInSqlMatchJavaAtEveryBoundary(@TempDir Path tmp) throws Exception {
    List<Long> sizes = new ArrayList<>(List.of(0L, 1L, 2L, 3L, 1000L, 12345L));
    for (int k = 1; k <= 50; k++) {
      long p = 1L << k;
      sizes.add(p - 1);
      sizes.add(p);
      sizes.add(p + 1);
    }
    try (DuckDbEngine e = DuckDbEngine.open(new EngineSettings(1, null, tmp))) {
      for (long size : sizes) {
        long sql = e.query("SELECT " + SizeBucketing.POW2.sql("CAST(" + size + " AS BIGINT)", e.dialect()),
            r -> r.getLong(1)).get(0);
        assertEquals(SizeBucketing.POW2.bucketOf(size), sql, "size " + size);
      }
    }
  }

  /** The histogram's join: a size is in the bucket Java gives it and in no other. */
  @Test
  void aBucketsBoundsHoldItsSizesOnly(@TempDir Path tmp) throws Exception {
    List<Long> sizes = new ArrayList<>(List.of(-1L, 0L, 1L, 2L, 3L, 1000L, 12345L));
    for (int k = 1; k <= 50; k++) {
      sizes.add((1L << k) - 1);
      sizes.add(1L << k);
      sizes.add((1L << k) + 1);
    }
    try (DuckDbEngine e = DuckDbEngine.open(new EngineSettings(1, null, tmp))) {
      for (SizeBucketing b : SizeBucketing.values()) {
        for (long size : sizes) {
          long own = b.bucketOf(size);
          // Buckets as the mode makes them: its own and its neighbours.
          long[] candidates = b == SizeBucketing.EXACT ? new long[] {own - 1, own, own + 1}
              : new long[] {own, own == 0 ? 1 : own * 2, own <= 1 ? 0 : own / 2};
          for (long bucket : candidates) {
            boolean in = e.query("SELECT CASE WHEN " + b.containsSql("CAST(" + bucket
                + " AS BIGINT)", "CAST(" + size + " AS BIGINT)") + " THEN 1 ELSE 0 END",
                r -> r.getLong(1)).get(0) == 1;
            assertEquals(bucket == own, in, b + ": size " + size + ", bucket " + bucket);
          }
        }
        assertEquals(0L, e.query("SELECT CASE WHEN " + b.containsSql("CAST(0 AS BIGINT)",
            "CAST(NULL AS BIGINT)") + " THEN 1 ELSE 0 END", r -> r.getLong(1)).get(0),
            "a null size is in no bucket");
      }
    }
  }

  @Test
  void labelsUseBinaryUnits() {
    assertEquals("512 B", SizeBucketing.label(512));
    assertEquals("1 KiB", SizeBucketing.label(1024));
    assertEquals("1.50 MiB", SizeBucketing.label(3L << 19));
    assertEquals("256 MiB", SizeBucketing.label(256L << 20));
    assertEquals("1 MiB–2 MiB", SizeBucketing.POW2.bucketLabel(1L << 20));
    assertEquals("12.1 KiB", SizeBucketing.EXACT.bucketLabel(12345));
    assertEquals(12345, SizeBucketing.EXACT.bucketOf(12345));
  }
}
