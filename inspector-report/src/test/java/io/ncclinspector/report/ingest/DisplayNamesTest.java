package io.ncclinspector.report.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.engine.duckdb.EngineSettings;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DisplayNamesTest {
  @Test
  void collapsesFilesUnderPrefixRulesAndMapsEveryPathBackInSql(@TempDir Path tmp)
      throws Exception {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < 50; i++) {
      m.put("/work/run/logs/node" + i + ".log", "logs/node" + i + ".log");
    }
    m.put("/data/job2/x.log", "job2-link/x.log");
    m.put("/data/job2/sub/y.log", "job2-link/sub/y.log");
    m.put("/tmp/staging/salvaged-00001.jsonl", "logs/we'ird [1].log");
    DisplayNames names = DisplayNames.of(m);
    assertTrue(names.ruleCount() <= 3, "few rules, not one per file: " + names.ruleCount());
    try (DuckDbEngine e = DuckDbEngine.open(new EngineSettings(1, null, tmp))) {
      for (Map.Entry<String, String> entry : m.entrySet()) {
        assertEquals(entry.getValue(), names.apply(entry.getKey()));
        String sql = "SELECT " + names.sql("p") + " FROM (SELECT "
            + DuckDbEngine.literal(entry.getKey()) + " AS p)";
        assertEquals(entry.getValue(), e.query(sql, r -> r.getString(1)).get(0));
      }
    }
  }

  @Test
  void identicalNamesNeedNoExpression() {
    Map<String, String> m = Map.of("/a/b.log", "/a/b.log");
    DisplayNames names = DisplayNames.of(m);
    assertEquals("/a/b.log", names.apply("/a/b.log"));
  }
}
