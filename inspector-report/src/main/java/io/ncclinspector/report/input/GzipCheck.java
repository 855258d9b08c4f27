package io.ncclinspector.report.input;

import io.ncclinspector.format.CheckedGzipInputStream;
import io.ncclinspector.format.GzipDamageException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Reads gzip log files through to their end with the checked reader ({@link
 * CheckedGzipInputStream}), before an engine that decompresses on its own reads them: DuckDB's
 * gzip reader does not check CRCs or trailers and takes a file cut at a member boundary for a
 * whole one, so its reading of a damaged file cannot be trusted. The files found damaged are read
 * by the report's own line reader instead, which says where and why reading stopped.
 */
public final class GzipCheck {
  private GzipCheck() {}

  /**
   * The damaged files among {@code files}, each checked once, on up to {@code threads} threads.
   *
   * @return the files that cannot be read to their end
   */
  public static List<LogFile> damaged(List<LogFile> files, int threads) throws IOException {
    List<LogFile> gzip = files.stream().filter(f -> f.compression() == Compression.GZIP
        && f.path() != null).toList();
    if (gzip.isEmpty()) {
      return List.of();
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads,
        gzip.size())), r -> {
          Thread t = new Thread(r, "nccl-inspector-gzip-check");
          t.setDaemon(true);
          return t;
        });
    try {
      List<Future<Boolean>> checks = new ArrayList<>();
      for (LogFile f : gzip) {
        checks.add(pool.submit(() -> isDamaged(f)));
      }
      List<LogFile> damaged = new ArrayList<>();
      for (int i = 0; i < gzip.size(); i++) {
        if (checks.get(i).get()) {
          damaged.add(gzip.get(i));
        }
      }
      return damaged;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while checking gzip files", e);
    } catch (ExecutionException e) {
      throw new IOException("checking gzip files failed: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** Whether a gzip file cannot be read to its end (damaged, or a read error). */
  static boolean isDamaged(LogFile f) {
    byte[] sink = new byte[1 << 16];
    try (InputStream in = new CheckedGzipInputStream(Files.newInputStream(f.path()),
        f.sizeBytes())) {
      while (in.read(sink) >= 0) {
        // Only the checks matter.
      }
      return false;
    } catch (GzipDamageException e) {
      return true;
    } catch (IOException e) {
      return true; /* the line reader says what went wrong */
    }
  }
}
