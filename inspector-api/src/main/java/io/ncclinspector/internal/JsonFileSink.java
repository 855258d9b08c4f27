package io.ncclinspector.internal;

import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.internal.output.AccountedFile;
import io.ncclinspector.internal.output.AppendThread;
import io.ncclinspector.internal.output.FileNames;
import io.ncclinspector.internal.output.OutputFileSystem;
import io.ncclinspector.spi.InspectorExporter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * The JSON Lines output file, {@code <dump dir>/<host>-pid<pid>.log}, and the quarantine file
 * beside it ({@code <host>-pid<pid>.quarantine.log}) for records whose GPU timestamps were
 * unusable. Each is created at its first record, never before (an inspector that sees no NCCL
 * leaves no file), and created new: if the name is taken (a log of an earlier process with the
 * same host and pid, anything planted there), the next free name {@code <host>-pid<pid>-1.log}, ...
 * is used; nothing existing is ever opened, followed or truncated.
 *
 * <p>An output problem never reaches the training program. A record counts as written once its
 * whole line is in the file; lines that could not be written are held and retried (a disk that
 * fills up and frees again loses nothing while the held lines fit), and what cannot be held is
 * counted as not written ({@link AccountedFile}).
 *
 * <p>Lines are encoded on the caller's thread (the JSON writer thread) and appended to the files
 * by a thread of the sink's own ({@link AppendThread}, {@code nccl-inspector-json-append}), so
 * that encoding and the kernel's copy of the bytes into the page cache run side by side.
 * {@link #flush} and {@link #close} return once what came before is in the files (or held).
 */
public final class JsonFileSink implements InspectorExporter, Abandonable {
  private static final int MAX_PENDING_BYTES = 8 << 20;
  private static final long RETRY_NANOS = Duration.ofSeconds(1).toNanos();
  /** The appender's files, by index. */
  private static final int MAIN = 0;
  private static final int QUARANTINE = 1;

  private final InspectorConfig config;
  private final String gitRev;
  private final AccountedFile main;
  private final AccountedFile quarantine;
  private final AppendThread append;
  private final JsonLinesWriter writer;
  private JsonLinesWriter quarantineWriter;

  private JsonFileSink(InspectorConfig config, String gitRev, OutputFileSystem fs, Ticker ticker) throws IOException {
    this.config = config;
    this.gitRev = gitRev;
    Path dir = config.dumpDirectory().toAbsolutePath();
    String stem = config.processIdentity().hostname() + "-pid" + config.processIdentity().pid();
    this.main = new AccountedFile(fs, new FileNames(dir, stem, ".log"), "NCCL Inspector output", fs.writeBytes(),
        MAX_PENDING_BYTES, RETRY_NANOS, ticker::nanoTime);
    /* Like the output file, the quarantine file is created at its first line, never before. */
    this.quarantine = new AccountedFile(fs, new FileNames(dir, stem + ".quarantine", ".log"),
        "NCCL Inspector quarantine output", fs.writeBytes(), MAX_PENDING_BYTES, RETRY_NANOS, ticker::nanoTime);
    main.preflight(); /* before the appending thread starts, which then owns both files */
    this.append = new AppendThread("nccl-inspector-json-append", List.of(main, quarantine));
    this.writer = new JsonLinesWriter(append.stream(MAIN), config.processIdentity(), gitRev, config.verbose());
  }

  /** The output of a configuration, on the local file system. Creates no file; never throws. */
  public static JsonFileSink open(InspectorConfig config, String gitRev) {
    return open(config, gitRev, OutputFileSystem.local());
  }

  /**
   * The output of a configuration on a given file system. Creates nothing; an output directory
   * that cannot be created or written is reported at once (logged, and in {@link #error()}).
   */
  public static JsonFileSink open(InspectorConfig config, String gitRev, OutputFileSystem fs) {
    return open(config, gitRev, fs, Ticker.SYSTEM);
  }

  /** As above, with the clock the retry interval of a failing output is measured on. */
  public static JsonFileSink open(InspectorConfig config, String gitRev, OutputFileSystem fs, Ticker ticker) {
    try {
      return new JsonFileSink(config, gitRev, fs, ticker);
    } catch (IOException e) {
      throw new UncheckedIOException(e); /* in-memory streams: not reached */
    }
  }

  /** The output file: the one created, or the name it will get at the first record. */
  public Path file() {
    return main.plannedPath();
  }

  /** The quarantine file: the one created, or the name it will get. */
  public Path quarantineFile() {
    return quarantine.plannedPath();
  }

  /** The output file, if it was created. */
  public Optional<Path> createdFile() {
    return main.path();
  }

  /** Why output cannot be written right now, if it cannot. */
  public Optional<String> error() {
    Optional<String> e = main.error();
    return e.isPresent() ? e : quarantine.error().map(m -> "quarantine file: " + m);
  }

  /** The first reason output could not be written, if it ever could not (it may work again). */
  public Optional<String> firstError() {
    Optional<String> e = main.firstError();
    return e.isPresent() ? e : quarantine.firstError().map(m -> "quarantine file: " + m);
  }

  /** The thread that appends the lines to the files (tests: it must end at close or abandonment). */
  Thread appendThread() {
    return append.thread();
  }

  /** Records whose line is in the output file. */
  public long linesWritten() {
    return main.written();
  }

  /** Records whose line is in the quarantine file. */
  public long linesQuarantined() {
    return quarantine.written();
  }

  /** Records that will never be written (output failed and they could not be held). */
  public long linesNotWritten() {
    return main.lost() + quarantine.lost() + append.lost();
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
  public void operationCompleted(OperationRecord record) {
    long now = dumpMicros();
    try {
      if (record.timing().quarantine() != Quarantine.NONE) {
        if (quarantineWriter == null) {
          quarantineWriter = new JsonLinesWriter(append.stream(QUARANTINE), config.processIdentity(), gitRev,
              config.verbose());
        }
        line(quarantineWriter, QUARANTINE, record, now);
      } else {
        line(writer, MAIN, record, now);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); /* in-memory streams: not reached */
    }
  }

  @Override
  public void communicatorDestroyed(CommunicatorInfo communicator) {
    writer.forget(communicator.serial());
    if (quarantineWriter != null) {
      quarantineWriter.forget(communicator.serial());
    }
  }

  /** One record as one unit: the writer's bytes are pushed to the appender's chunk, then the line ends. */
  private void line(JsonLinesWriter w, int target, OperationRecord record, long now) throws IOException {
    w.write(record, now);
    w.flush();
    append.endUnit(target, 1);
  }

  /**
   * Returns once every line so far is in its file (or held where the file cannot be written):
   * each line's bytes are with the appender already ({@link #line}).
   */
  @Override
  public void flush() {
    append.flush();
  }

  @Override
  public void close() {
    try {
      writer.close();
      if (quarantineWriter != null) {
        quarantineWriter.close();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); /* in-memory streams: not reached */
    }
    append.close(); /* appends what is left, closes both files, ends its thread */
  }

  /**
   * The writer thread was abandoned (stuck past the close timeout, in all likelihood behind a disk
   * that does not answer): the appending thread is asked to append what it was handed, close both
   * files and end, without waiting for it. Lines it cannot take are counted as not written.
   */
  @Override
  public void abandoned() {
    append.closeLater();
  }
}
