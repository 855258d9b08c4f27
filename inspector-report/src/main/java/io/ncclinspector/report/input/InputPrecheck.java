package io.ncclinspector.report.input;

import io.ncclinspector.format.CheckedGzipInputStream;
import io.ncclinspector.format.GzipDamageException;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Reads each local log file once before DuckDB does, on several threads, for two things.
 *
 * <p>Gzip files are read through to their end with the checked reader ({@link
 * CheckedGzipInputStream}): DuckDB's gzip reader does not check CRCs or trailers and takes a file
 * cut at a member boundary for a whole one, so its reading of a damaged file cannot be trusted.
 * The files found damaged are read by the report's own line reader instead, which says where and
 * why reading stopped.
 *
 * <p>Every file's lines, plain or decompressed, go through {@link LineScreen}: a file whose every
 * line it passes can be given to DuckDB's typed reader, which costs about two thirds of the
 * checked reading. The screen stops at the first line it does not pass; a gzip file is read on
 * to its end all the same.
 */
public final class InputPrecheck {
  private InputPrecheck() {}

  /**
   * What the pre-read found.
   *
   * @param damaged the gzip files that cannot be read to their end
   * @param screened the display names of the files whose every line {@link LineScreen} passed,
   *     each with the fields its lines hold ({@link LineScreen#fieldsSeen})
   */
  public record Result(List<LogFile> damaged, Map<String, Set<String>> screened) {}

  private enum Verdict { DAMAGED, SCREENED, UNSCREENED }

  /** A file's verdict, and with {@link Verdict#SCREENED} the fields its lines hold. */
  record Outcome(Verdict verdict, Set<String> fields) {}

  /** Reads the local plain and gzip files among {@code files}, each once, on up to {@code threads} threads. */
  public static Result run(List<LogFile> files, int threads) throws IOException {
    List<LogFile> local = files.stream().filter(f -> f.path() != null
        && (f.compression() == Compression.GZIP || f.compression() == Compression.NONE)).toList();
    if (local.isEmpty()) {
      return new Result(List.of(), Map.of());
    }
    ThreadLocal<LineScreen> screens = ThreadLocal.withInitial(LineScreen::new);
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads,
        local.size())), r -> {
          Thread t = new Thread(r, "nccl-inspector-precheck");
          t.setDaemon(true);
          return t;
        });
    try {
      List<Future<Outcome>> checks = new ArrayList<>();
      for (LogFile f : local) {
        checks.add(pool.submit(() -> read(f, screens.get())));
      }
      List<LogFile> damaged = new ArrayList<>();
      Map<String, Set<String>> screened = new LinkedHashMap<>();
      // Files of one job mostly hold the same fields: one set each kept, however many files.
      Map<Set<String>, Set<String>> distinct = new HashMap<>();
      for (int i = 0; i < local.size(); i++) {
        Outcome o = checks.get(i).get();
        switch (o.verdict()) {
          case DAMAGED -> damaged.add(local.get(i));
          case SCREENED -> screened.put(local.get(i).displayName(),
              distinct.computeIfAbsent(o.fields(), k -> k));
          case UNSCREENED -> { }
        }
      }
      return new Result(damaged, screened);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while reading the input files", e);
    } catch (ExecutionException e) {
      throw new IOException("reading the input files failed: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** Reads one file: a gzip file to its end (damaged or not), a plain one as far as the screen goes. */
  static Outcome read(LogFile f, LineScreen screen) {
    boolean gzip = f.compression() == Compression.GZIP;
    try (InputStream in = gzip
        ? new CheckedGzipInputStream(Files.newInputStream(f.path()), f.sizeBytes())
        : new FileInputStream(f.path().toFile())) { // the fastest plain read into a heap array
      boolean passed = screen.passes(in);
      if (gzip) {
        byte[] sink = new byte[1 << 16];
        while (in.read(sink) >= 0) {
          // Only the checks matter.
        }
      }
      return passed ? new Outcome(Verdict.SCREENED, Set.copyOf(screen.fieldsSeen()))
          : new Outcome(Verdict.UNSCREENED, Set.of());
    } catch (GzipDamageException e) {
      return new Outcome(Verdict.DAMAGED, Set.of());
    } catch (IOException e) {
      /* A gzip file the checked reader cannot read to its end: the line reader says what went
       * wrong. A plain file that cannot be read now: DuckDB's reading will say so. */
      return new Outcome(gzip ? Verdict.DAMAGED : Verdict.UNSCREENED, Set.of());
    }
  }
}
