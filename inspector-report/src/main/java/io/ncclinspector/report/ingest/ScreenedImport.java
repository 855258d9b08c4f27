package io.ncclinspector.report.ingest;

import io.ncclinspector.format.CheckedGzipInputStream;
import io.ncclinspector.report.ingest.parquet.ParquetFileWriter;
import io.ncclinspector.report.input.Compression;
import io.ncclinspector.report.input.LineScreen;
import io.ncclinspector.report.input.LogFile;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The report's own reading of log files: each file is read once, its lines screened ({@link
 * LineScreen}) and, in the same pass, their values written as raw rows ({@link RawLayout}) to a
 * Parquet file that DuckDB reads at memory speed instead of parsing the JSON again. A file with
 * any line the screen does not pass is left to DuckDB's checked reading, as before; its partial
 * file is deleted. Files are read on several threads, one file to a thread.
 */
final class ScreenedImport {
  /** Rows to a row group: DuckDB's vector size, and few enough to stay in the cache. */
  static final int GROUP_ROWS = 2048;

  private ScreenedImport() {}

  /**
   * Reads the files into Parquet files in {@code dir} (created if need be), each under its own
   * absolute path.
   *
   * @return each file that passed, by display name, and its Parquet file
   */
  static Map<String, Path> run(List<LogFile> files, Path dir, RawLayout layout, int threads)
      throws IOException {
    Map<String, Path> done = new LinkedHashMap<>();
    if (files.isEmpty()) {
      return done;
    }
    Files.createDirectories(dir);
    ThreadLocal<LineScreen> screens = ThreadLocal.withInitial(LineScreen::new);
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads,
        files.size())), r -> {
          Thread t = new Thread(r, "nccl-inspector-import");
          t.setDaemon(true);
          return t;
        });
    try {
      List<Future<Boolean>> reads = new ArrayList<>();
      List<Path> targets = new ArrayList<>();
      for (int i = 0; i < files.size(); i++) {
        LogFile f = files.get(i);
        /* Under the file's own absolute path, so that the paths DuckDB reports map back to the
         * display names by the prefix rules of the plain files (DisplayNames): one rule for a
         * directory of files rather than one per file. */
        Path target = dir.resolve(f.path().toAbsolutePath().normalize().toString().substring(1));
        Files.createDirectories(target.getParent());
        targets.add(target);
        reads.add(pool.submit(() -> read(f, target, layout, screens.get())));
      }
      for (int i = 0; i < files.size(); i++) {
        if (reads.get(i).get()) {
          done.put(files.get(i).displayName(), targets.get(i));
        }
      }
      return done;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while reading the input files", e);
    } catch (ExecutionException e) {
      throw new IOException("reading the input files failed: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** Reads one file into {@code target}; false (and no file) when the screen does not pass it. */
  static boolean read(LogFile f, Path target, RawLayout layout, LineScreen screen)
      throws IOException {
    boolean passed = false;
    try (InputStream in = open(f);
        ParquetFileWriter out = new ParquetFileWriter(target, layout.specs(), GROUP_ROWS)) {
      passed = screen.passes(in, new RawRowSink(layout, out));
    } catch (IOException | UncheckedIOException e) {
      /* A file that cannot be read to its end now (a damaged gzip member, a read error) is left
       * to the checked reading, which says what is wrong with it. */
      passed = false;
    } finally {
      if (!passed) {
        Files.deleteIfExists(target);
      }
    }
    return passed;
  }

  private static InputStream open(LogFile f) throws IOException {
    return f.compression() == Compression.GZIP
        ? new CheckedGzipInputStream(Files.newInputStream(f.path()), f.sizeBytes())
        : new FileInputStream(f.path().toFile()); // the fastest plain read into a heap array
  }
}
