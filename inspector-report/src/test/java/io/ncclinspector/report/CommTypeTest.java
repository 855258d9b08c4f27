package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.engine.duckdb.EngineSettings;
import io.ncclinspector.report.model.CommType;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommTypeTest {
  @Test
  void followsTheReferenceExportersRulesInItsOrder() {
    assertEquals(CommType.SINGLE_RANK, CommType.classify(1, 1));
    assertEquals(CommType.NVLINK_ONLY, CommType.classify(8, 1));
    assertEquals(CommType.HCA_ONLY, CommType.classify(4, 4));
    assertEquals(CommType.MIXED, CommType.classify(16, 2));
    // n_ranks == 1 wins over nnodes == 1 and over n_ranks == nnodes, as in get_comm_type.
    assertEquals(CommType.SINGLE_RANK, CommType.classify(1, 3));
    assertEquals(CommType.UNKNOWN, CommType.classify(0, 2));
    assertEquals("hca-only", CommType.HCA_ONLY.label());
    assertEquals(CommType.MIXED, CommType.fromLabel("mixed"));
  }

  @Test
  void sqlAndJavaAgreeOnEveryCombination(@TempDir Path tmp) throws Exception {
    try (DuckDbEngine e = DuckDbEngine.open(new EngineSettings(1, null, tmp))) {
      for (int ranks = -1; ranks <= 9; ranks++) {
        for (int nodes = -1; nodes <= 9; nodes++) {
          String sql = "SELECT " + CommType.sql(Integer.toString(ranks), Integer.toString(nodes));
          String label = e.query(sql, r -> r.getString(1)).get(0);
          assertEquals(CommType.classify(ranks, nodes).label(), label, ranks + "/" + nodes);
        }
      }
    }
  }
}
