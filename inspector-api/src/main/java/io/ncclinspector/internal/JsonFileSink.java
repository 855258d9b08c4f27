package io.ncclinspector.internal;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JSON Lines output file, {@code <dump dir>/<host>-pid<pid>.log}, and, opened on first use,
 * the quarantine file beside it ({@code <host>-pid<pid>.quarantine.log}) for records whose GPU
 * timestamps were unusable. The first inspector of a JVM truncates files left by an earlier process
 * with the same name; later inspectors of the same JVM append, so re-enabling never erases what was
 * written.
 *
 * <p>An output problem never reaches the training program: it is logged once (ERROR, with the
 * path and the reason), records keep flowing to the rest of the inspector, and the lines that
 * could not be written are counted.
 */
public final class JsonFileSink implements RecordSink {
  private static final Logger log = LoggerFactory.getLogger(JsonFileSink.class);
  private static final Set<Path> OPENED_BY_THIS_JVM = ConcurrentHashMap.newKeySet();

  private final Path file;
  private final JsonLinesWriter writer;
  private final InspectorConfig config;
  private final String gitRev;
  private JsonLinesWriter quarantineWriter;
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong quarantined = new AtomicLong();
  private final AtomicLong notWritten = new AtomicLong();
  private volatile String error;

  private JsonFileSink(Path file, JsonLinesWriter writer, String error, InspectorConfig config, String gitRev) {
    this.file = file;
    this.writer = writer;
    this.error = error;
    this.config = config;
    this.gitRev = gitRev;
  }

  /** Opens the output file of a configuration; never throws (see the class comment). */
  public static JsonFileSink open(InspectorConfig config, String gitRev) {
    Path file = config.outputFile().toAbsolutePath();
    try {
      return new JsonFileSink(file, openWriter(file, config, gitRev), null, config, gitRev);
    } catch (IOException | RuntimeException e) {
      String reason = "cannot write NCCL Inspector output " + file + ": " + describe(e)
          + " (profiling continues; records are not written to JSON)";
      log.error(reason);
      return new JsonFileSink(file, null, reason, config, gitRev);
    }
  }

  private static JsonLinesWriter openWriter(Path file, InspectorConfig config, String gitRev) throws IOException {
    Files.createDirectories(file.getParent());
    boolean first = OPENED_BY_THIS_JVM.add(file);
    OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        first ? StandardOpenOption.TRUNCATE_EXISTING : StandardOpenOption.APPEND);
    return new JsonLinesWriter(new BufferedOutputStream(out, 1 << 16), config.processIdentity(), gitRev,
        config.verbose());
  }

  /** The quarantine file's path. */
  public Path quarantineFile() {
    String name = file.getFileName().toString();
    return file.resolveSibling(name.substring(0, name.length() - ".log".length()) + ".quarantine.log");
  }

  /** Records written to the quarantine file so far. */
  public long linesQuarantined() {
    return quarantined.get();
  }

  private static String describe(Exception e) {
    String m = e.getMessage();
    return e.getClass().getSimpleName() + (m != null ? " " + m : "");
  }

  public Path file() {
    return file;
  }

  /** Why output stopped, if it did. */
  public Optional<String> error() {
    return Optional.ofNullable(error);
  }

  public long linesWritten() {
    return written.get();
  }

  public long linesNotWritten() {
    return notWritten.get();
  }

  /** Wall-clock microseconds, read at most every 100 µs (records written together share it). */
  private long clockCheckedNanos;
  private long clockMicros;

  private long dumpMicros() {
    long t = System.nanoTime();
    if (t - clockCheckedNanos > 100_000 || clockMicros == 0) {
      clockCheckedNanos = t;
      clockMicros = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }
    return clockMicros;
  }

  @Override
  public void record(OperationRecord record) {
    if (writer == null || error != null) {
      notWritten.incrementAndGet();
      return;
    }
    try {
      long now = dumpMicros();
      if (record.quarantine() != Quarantine.NONE) {
        if (quarantineWriter == null) {
          quarantineWriter = openWriter(quarantineFile(), config, gitRev);
        }
        quarantineWriter.write(record, now);
        quarantined.incrementAndGet();
      } else {
        writer.write(record, now);
        written.incrementAndGet();
      }
    } catch (IOException e) {
      fail(e);
      notWritten.incrementAndGet();
    }
  }

  @Override
  public void flush() {
    if (writer == null || error != null) {
      return;
    }
    try {
      writer.flush();
      if (quarantineWriter != null) {
        quarantineWriter.flush();
      }
    } catch (IOException e) {
      fail(e);
    }
  }

  @Override
  public void close() {
    if (writer == null) {
      return;
    }
    try {
      writer.close();
      if (quarantineWriter != null) {
        quarantineWriter.close();
      }
    } catch (IOException e) {
      if (error == null) {
        fail(e);
      }
    }
  }

  private void fail(IOException e) {
    error = "writing NCCL Inspector output " + file + " failed: " + describe(e)
        + " (profiling continues; further records are not written to JSON)";
    log.error(error);
  }
}
