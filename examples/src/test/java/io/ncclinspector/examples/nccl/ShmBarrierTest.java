package io.ncclinspector.examples.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The barrier's ranks are processes; here threads stand in, each with its own mapping of the file. */
class ShmBarrierTest {
  @TempDir
  Path dir;

  @Test
  void nobodyPassesBeforeEveryoneArrived() throws Exception {
    int ranks = 3;
    int rounds = 2000;
    Path file = dir.resolve("b");
    AtomicIntegerArray arrived = new AtomicIntegerArray(rounds);
    AtomicInteger early = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(ranks);
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (int r = 0; r < ranks; r++) {
        fs.add(pool.submit(() -> {
          try (ShmBarrier b = ShmBarrier.open(file, ranks, Duration.ofSeconds(30))) {
            for (int i = 0; i < rounds; i++) {
              arrived.incrementAndGet(i);
              b.await();
              if (arrived.get(i) != ranks) {
                early.incrementAndGet();
              }
            }
          }
          return null;
        }));
      }
      for (Future<?> f : fs) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(0, early.get(), "threads passed a barrier before all had arrived");
  }

  @Test
  void anyFlagGivesEveryRankTheSameAnswer() throws Exception {
    int ranks = 2;
    Path file = dir.resolve("f");
    ExecutorService pool = Executors.newFixedThreadPool(ranks);
    try {
      List<Future<List<Boolean>>> fs = new ArrayList<>();
      for (int r = 0; r < ranks; r++) {
        int rank = r;
        fs.add(pool.submit(() -> {
          List<Boolean> answers = new ArrayList<>();
          try (ShmBarrier b = ShmBarrier.open(file, ranks, Duration.ofSeconds(30))) {
            for (int i = 0; i < 200; i++) {
              /* rank 1 votes yes in round 57 only; rank 0 in rounds 120 and 121 */
              boolean vote = rank == 1 ? i == 57 : i == 120 || i == 121;
              answers.add(b.anyFlag(vote));
            }
          }
          return answers;
        }));
      }
      List<Boolean> a = fs.get(0).get(60, TimeUnit.SECONDS);
      List<Boolean> b = fs.get(1).get(60, TimeUnit.SECONDS);
      assertEquals(a, b);
      for (int i = 0; i < 200; i++) {
        assertEquals(i == 57 || i == 120 || i == 121, a.get(i), "round " + i);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aLoneRankTimesOutOrSeesTheAbort() throws Exception {
    try (ShmBarrier b = ShmBarrier.open(dir.resolve("t"), 2, Duration.ofMillis(200))) {
      IllegalStateException e = assertThrows(IllegalStateException.class, b::await);
      assertTrue(e.getMessage().contains("1 of 2"), e.getMessage());
    }
    try (ShmBarrier a = ShmBarrier.open(dir.resolve("a"), 2, Duration.ofSeconds(30));
        ShmBarrier other = ShmBarrier.open(dir.resolve("a"), 2, Duration.ofSeconds(30))) {
      other.abort();
      IllegalStateException e = assertThrows(IllegalStateException.class, a::await);
      assertTrue(e.getMessage().contains("aborted"), e.getMessage());
    }
  }
}
