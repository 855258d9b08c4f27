package io.ncclinspector.report.synthetic;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongConsumer;

/**
 * Runs the simulation and writes one log file per rank. The simulation is sequential (one global
 * clock); writing, the expensive part, runs per rank on a thread pool, a chunk of iterations at a
 * time.
 */
public final class SyntheticGenerator {
  private static final int OPERATIONS_PER_CHUNK = 4096;

  private SyntheticGenerator() {}

  /** Generates the files; {@code progress} receives the records written so far, now and then. */
  public static SyntheticResult generate(SyntheticConfig config, LongConsumer progress)
      throws IOException {
    Files.createDirectories(config.outputDirectory());
    ClusterSimulator sim = new ClusterSimulator(config);
    List<RankLogWriter> writers = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(config.threads(), r -> {
      Thread t = new Thread(r, "synthetic-writer");
      t.setDaemon(true);
      return t;
    });
    try {
      for (int r = 0; r < config.worldSize(); r++) {
        writers.add(new RankLogWriter(config, sim.communicators(), r));
      }
      List<SimOperation> chunk = new ArrayList<>();
      long written = 0;
      for (long it = 0; it < config.iterations(); it++) {
        chunk.addAll(sim.iteration(it));
        if (chunk.size() >= OPERATIONS_PER_CHUNK || it == config.iterations() - 1) {
          written += writeChunk(pool, writers, List.copyOf(chunk));
          chunk.clear();
          progress.accept(written);
        }
      }
    } finally {
      pool.shutdownNow();
      IOException failure = null;
      for (RankLogWriter w : writers) {
        try {
          w.close();
        } catch (IOException e) {
          failure = failure == null ? e : failure;
        }
      }
      if (failure != null) {
        throw failure;
      }
    }
    long records = 0;
    long bytes = 0;
    List<Path> files = new ArrayList<>();
    for (RankLogWriter w : writers) {
      records += w.records();
      bytes += Files.size(w.file());
      files.add(w.file());
    }
    return new SyntheticResult(files, records, bytes, config.iterations());
  }

  private static long writeChunk(ExecutorService pool, List<RankLogWriter> writers,
      List<SimOperation> ops) throws IOException {
    List<Future<Long>> done = new ArrayList<>();
    for (RankLogWriter w : writers) {
      done.add(pool.submit(() -> {
        long before = w.records();
        w.write(ops);
        return w.records() - before;
      }));
    }
    long n = 0;
    for (Future<Long> f : done) {
      try {
        n += f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof IOException io) {
          throw io;
        }
        if (e.getCause() instanceof UncheckedIOException u) {
          throw u.getCause();
        }
        throw new IllegalStateException(e.getCause());
      }
    }
    return n;
  }
}
