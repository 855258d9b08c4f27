package io.ncclinspector.report.spark;

import io.ncclinspector.report.input.Compression;
import io.ncclinspector.report.input.DuplicateFiles;
import io.ncclinspector.report.input.InputSet;
import io.ncclinspector.report.input.LogDiscovery;
import io.ncclinspector.report.input.LogFile;
import io.ncclinspector.report.input.SkippedInput;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * Finds log files given as Hadoop URIs ({@code hdfs://}, {@code s3a://}, ...) with the rules of
 * {@link LogDiscovery}: directories searched recursively for the log names, a file named directly
 * taken whatever its name, empty files and files of other kinds passed over, gzip decided by the
 * first bytes, files of identical content read once.
 */
final class HadoopLogDiscovery {
  private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*://.*");

  private HadoopLogDiscovery() {}

  /** Whether an argument names a file outside the local file system. */
  static boolean isRemote(String argument) {
    return SCHEME.matcher(argument).matches() && !argument.startsWith("file:");
  }

  static InputSet discover(List<String> arguments, Configuration conf) throws IOException {
    List<LogFile> logs = new ArrayList<>();
    List<SkippedInput> skipped = new ArrayList<>();
    for (String argument : arguments) {
      Path root = new Path(argument);
      FileSystem fs = root.getFileSystem(conf);
      if (!fs.exists(root)) {
        throw new NoSuchFileException(argument, null, "no such file or directory");
      }
      FileStatus status = fs.getFileStatus(root);
      if (!status.isDirectory()) {
        consider(fs, status, argument, logs, skipped);
        continue;
      }
      String base = fs.makeQualified(root).toUri().getPath();
      RemoteIterator<LocatedFileStatus> files = fs.listFiles(root, true);
      while (files.hasNext()) {
        LocatedFileStatus f = files.next();
        if (f.isFile() && LogDiscovery.hasLogName(f.getPath().getName())) {
          String below = f.getPath().toUri().getPath().substring(base.length());
          String sep = argument.endsWith("/") || below.startsWith("/") ? "" : "/";
          String display = argument + (argument.endsWith("/") && below.startsWith("/")
              ? below.substring(1) : sep + below);
          consider(fs, f, display, logs, skipped);
        }
      }
    }
    logs.sort(java.util.Comparator.comparing(LogFile::displayName));
    return DuplicateFiles.readOnce(new InputSet(logs, skipped),
        f -> new Path(f.location()).getFileSystem(conf).open(new Path(f.location())));
  }

  private static void consider(FileSystem fs, FileStatus f, String displayName,
      List<LogFile> logs, List<SkippedInput> skipped) {
    if (f.getLen() == 0) {
      skipped.add(new SkippedInput(displayName, "empty file"));
      return;
    }
    try {
      Compression compression;
      try (InputStream in = fs.open(f.getPath())) {
        compression = LogDiscovery.sniffCompression(in);
      }
      Optional<String> notRecords = compression == Compression.PARQUET ? Optional.empty()
          : LogDiscovery.sniffContent(fs.open(f.getPath()), compression);
      if (notRecords.isPresent()) {
        skipped.add(new SkippedInput(displayName, notRecords.get()));
        return;
      }
      logs.add(LogFile.remote(f.getPath().toString(), displayName, f.getLen(), compression));
    } catch (IOException e) {
      skipped.add(SkippedInput.unreadable(displayName, "cannot be read: "
          + e.getClass().getSimpleName() + ": " + e.getMessage()));
    }
  }
}
