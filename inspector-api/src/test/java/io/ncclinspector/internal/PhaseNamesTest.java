package io.ncclinspector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class PhaseNamesTest {
  /** 8 threads naming 50 new phases each at once: every name gets its own id, and the id maps back to it. */
  @Test
  void concurrentNewNamesGetDistinctIds() throws Exception {
    int threads = 8;
    int phases = 50;
    for (int round = 0; round < 20; round++) {
      CyclicBarrier start = new CyclicBarrier(threads);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<Map<String, Integer>>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String prefix = "race-" + round + "-" + t + "-";
        results.add(pool.submit((Callable<Map<String, Integer>>) () -> {
          Map<String, Integer> ids = new HashMap<>();
          start.await();
          for (int p = 0; p < phases; p++) {
            ids.put(prefix + p, PhaseNames.idOf(prefix + p));
          }
          return ids;
        }));
      }
      Map<Integer, String> byId = new HashMap<>();
      for (Future<Map<String, Integer>> f : results) {
        for (Map.Entry<String, Integer> e : f.get().entrySet()) {
          String other = byId.put(e.getValue(), e.getKey());
          assertNull(other, "id " + e.getValue() + " given to both " + other + " and " + e.getKey());
          assertEquals(e.getKey(), PhaseNames.nameOf(e.getValue()), "the id maps back to its name");
        }
      }
      pool.shutdown();
      assertEquals(threads * phases, byId.size());
    }
  }

  @Test
  void theSameNameKeepsItsId() {
    int id = PhaseNames.idOf("forward");
    assertEquals(id, PhaseNames.idOf("forward"));
    assertEquals("forward", PhaseNames.nameOf(id));
    assertNull(PhaseNames.nameOf(0));
  }
}
