package io.ncclinspector.prometheus.internal;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Writes one textfile so that a reader (node_exporter's textfile collector) sees either the old
 * or the new content, never a half-written file: the text goes to a temporary file in the same
 * directory, whose name does not end in {@code .prom} (so the collector ignores it), and is then
 * renamed over the target. The file is made world-readable, as the collector usually runs as
 * another user.
 */
final class TextfileWriter {
  private static final Set<PosixFilePermission> READABLE = PosixFilePermissions.fromString("rw-r--r--");

  private final PrometheusTextFormatWriter format =
      PrometheusTextFormatWriter.builder().setIncludeCreatedTimestamps(false).build();
  private boolean atomicMoveSupported = true;

  void write(Path target, MetricSnapshots metrics) throws IOException {
    Path dir = target.getParent();
    Files.createDirectories(dir);
    Path temp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp");
    try {
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp), 1 << 16)) {
        format.write(out, metrics);
      }
      try {
        Files.setPosixFilePermissions(temp, READABLE);
      } catch (UnsupportedOperationException e) {
        // not a POSIX file system: its default permissions apply
      }
      move(temp, target);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  private void move(Path temp, Path target) throws IOException {
    if (atomicMoveSupported) {
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return;
      } catch (AtomicMoveNotSupportedException e) {
        atomicMoveSupported = false; /* a file system without rename: replace, not atomically */
      }
    }
    Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
  }
}
