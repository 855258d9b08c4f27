package io.ncclinspector.report.input;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileVisitOption;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Finds the log files under the input arguments: directories are searched recursively for
 * {@code *.log}, {@code *.jsonl} and their {@code .gz} forms (the names the reference exporter
 * looks for), and for {@code *.parquet} (the report's own export, read back); a file named
 * directly is taken whatever its name. Each file's first bytes decide whether it is gzip or
 * Parquet; the first line of a text file tells this project's raw event traces (which are not
 * records) apart from Inspector logs. Whether a Parquet file holds the export's columns is
 * checked by the engine that reads it. Files of identical content are read once ({@link
 * DuplicateFiles}).
 */
public final class LogDiscovery {
  private static final String[] SUFFIXES = {".log", ".jsonl", ".log.gz", ".jsonl.gz"};
  private static final JsonFactory JSON = new JsonFactory();
  private static final int SNIFF_BYTES = 64 * 1024;

  private LogDiscovery() {}

  /**
   * Discovers the inputs.
   *
   * @param arguments files or directories as the user gave them
   * @param exclude a directory whose contents are never inputs (the report's output), or null
   * @throws NoSuchFileException if an argument does not exist: a mistyped path should stop the
   *     run rather than silently shrink the report
   */
  public static InputSet discover(List<String> arguments, Path exclude) throws IOException {
    List<LogFile> logs = new ArrayList<>();
    List<SkippedInput> skipped = new ArrayList<>();
    Set<Path> seen = new HashSet<>();
    Path excluded = exclude == null ? null : real(exclude.toAbsolutePath().normalize());
    for (String argument : arguments) {
      Path root = Path.of(argument);
      if (!Files.exists(root)) {
        throw new NoSuchFileException(argument, null, "no such file or directory");
      }
      if (Files.isDirectory(root)) {
        walk(argument, root, excluded, seen, logs, skipped);
      } else {
        consider(root, argument, seen, logs, skipped);
      }
    }
    logs.sort(Comparator.comparing(LogFile::displayName));
    return DuplicateFiles.readOnce(new InputSet(logs, skipped), f -> Files.newInputStream(f.path()));
  }

  /** Whether a file name is one the directory search takes. */
  public static boolean hasLogName(String fileName) {
    String lower = fileName.toLowerCase(Locale.ROOT);
    if (lower.endsWith(".parquet") && lower.length() > ".parquet".length()) {
      return true;
    }
    for (String suffix : SUFFIXES) {
      if (lower.endsWith(suffix) && lower.length() > suffix.length()) {
        return true;
      }
    }
    return false;
  }

  /** The real path of an existing file, else the path itself. */
  private static Path real(Path p) {
    try {
      return p.toRealPath();
    } catch (IOException e) {
      return p;
    }
  }

  /**
   * Walks a directory, following symbolic links (log directories are often links to shared
   * storage); a link loop is reported as a skipped entry rather than followed forever.
   */
  private static void walk(String argument, Path root, Path excluded, Set<Path> seen,
      List<LogFile> logs, List<SkippedInput> skipped) throws IOException {
    Path absRoot = root.toRealPath();
    Files.walkFileTree(absRoot, EnumSet.of(FileVisitOption.FOLLOW_LINKS), Integer.MAX_VALUE,
        new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        if (excluded != null && real(dir).startsWith(excluded)) {
          return FileVisitResult.SKIP_SUBTREE;
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        if (!hasLogName(file.getFileName().toString())) {
          return FileVisitResult.CONTINUE;
        }
        String name = join(argument, absRoot.relativize(file.toAbsolutePath().normalize()));
        if (attrs.isRegularFile()) {
          consider(file, name, seen, logs, skipped);
        } else if (attrs.isSymbolicLink()) { /* a link that could not be followed */
          skipped.add(SkippedInput.unreadable(name, "cannot be read: a symbolic link to "
              + linkTarget(file) + ", which does not exist"));
        } else {
          skipped.add(new SkippedInput(name, notRegular(attrs)));
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) {
        String name = join(argument, absRoot.relativize(file.toAbsolutePath().normalize()));
        skipped.add(e instanceof FileSystemLoopException
            ? new SkippedInput(name, "a symbolic link loop (" + describe(e) + "): not followed")
            : SkippedInput.unreadable(name, "cannot be read: " + describe(e)));
        return FileVisitResult.CONTINUE;
      }
    });
  }

  private static String join(String argument, Path relative) {
    String sep = argument.endsWith("/") ? "" : "/";
    return relative.toString().isEmpty() ? argument : argument + sep + relative;
  }

  private static String linkTarget(Path link) {
    try {
      return Files.readSymbolicLink(link).toString();
    } catch (IOException e) {
      return "(unknown)";
    }
  }

  /** Why a file that is not a regular file (a FIFO, a socket, a device) is not read. */
  private static String notRegular(BasicFileAttributes attrs) {
    return "not a regular file (" + (attrs.isDirectory() ? "a directory"
        : "a FIFO, socket or device") + "): not read";
  }

  private static void consider(Path file, String displayName, Set<Path> seen, List<LogFile> logs,
      List<SkippedInput> skipped) {
    try {
      Path real = file.toRealPath();
      if (!seen.add(real)) {
        return; // reached through two arguments: read once
      }
      BasicFileAttributes attrs = Files.readAttributes(real, BasicFileAttributes.class);
      if (!attrs.isRegularFile()) {
        // Never opened: a FIFO would block the report until something writes to it.
        skipped.add(new SkippedInput(displayName, notRegular(attrs)));
        return;
      }
      long size = attrs.size();
      if (size == 0) {
        skipped.add(new SkippedInput(displayName, "empty file"));
        return;
      }
      Compression compression = sniffCompression(real);
      Optional<String> notRecords = compression == Compression.PARQUET ? Optional.empty()
          : sniffContent(real, compression);
      if (notRecords.isPresent()) {
        skipped.add(new SkippedInput(displayName, notRecords.get()));
        return;
      }
      logs.add(new LogFile(file.toAbsolutePath().normalize(), displayName, size, compression));
    } catch (IOException e) {
      skipped.add(SkippedInput.unreadable(displayName, "cannot be read: " + describe(e)));
    }
  }

  static Compression sniffCompression(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return sniffCompression(in);
    }
  }

  /** Gzip, Parquet or plain text, from the first bytes of a stream. */
  public static Compression sniffCompression(InputStream in) throws IOException {
    byte[] head = in.readNBytes(4);
    if (head.length >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b) {
      return Compression.GZIP;
    }
    return head.length == 4 && head[0] == 'P' && head[1] == 'A' && head[2] == 'R' && head[3] == '1'
        ? Compression.PARQUET : Compression.NONE;
  }

  /**
   * Looks at the first non-blank line: empty content, or a raw event trace of this project
   * ({@code "ev"} and no {@code "header"}), is not a log. Anything else, even garbage, is
   * imported so that its lines are reported one by one.
   */
  private static Optional<String> sniffContent(Path file, Compression compression) {
    try {
      return sniffContent(Files.newInputStream(file), compression);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * Why a file's content is not a log (only blank lines, or a known file of another kind), from
   * its first non-blank line; empty if it is to be imported. Closes the stream.
   */
  public static Optional<String> sniffContent(InputStream in, Compression compression) {
    try (LineReader lines = LineReader.open(in, -1, compression, SNIFF_BYTES)) {
      LineReader.Line line;
      while ((line = lines.next()) != null) {
        if (line.blank()) {
          continue;
        }
        return Optional.ofNullable(otherFormat(line));
      }
      return Optional.of("no records (only blank lines)");
    } catch (IOException e) {
      return Optional.empty(); // unreadable content is reported by the import, line by line
    }
  }

  /**
   * Whether a first line shows a known file of another kind, and which: this project's raw event
   * traces ({@code "ev"}, no {@code "header"}), or the CUPTI kernel listings kept beside recorded
   * traces ({@code "name"}, {@code "start_us"}, {@code "dur_us"}). Null for anything else.
   */
  private static String otherFormat(LineReader.Line line) {
    if (line.tooLong()) {
      return null;
    }
    Set<String> keys = new HashSet<>();
    try (JsonParser p = JSON.createParser(line.bytes(), line.offset(), line.length())) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        if (name.equals("header")) {
          return null;
        }
        keys.add(name);
        p.nextToken();
        p.skipChildren();
      }
    } catch (IOException e) {
      return null;
    }
    if (keys.contains("ev")) {
      return "raw event trace, not Inspector records (replay it with 'nccl-inspector replay')";
    }
    if (keys.containsAll(List.of("name", "start_us", "dur_us"))) {
      return "CUPTI kernel timings, not Inspector records";
    }
    return null;
  }

  static String describe(IOException e) {
    String m = e.getMessage();
    String kind = e.getClass().getSimpleName();
    return m == null ? kind : kind + ": " + m;
  }
}
