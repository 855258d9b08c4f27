package io.ncclinspector.internal.output;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Creates output files. Only new files: an existing name (a file, a directory, a symbolic link,
 * even a dangling one) is never opened, followed or truncated; the caller picks another name.
 * Tests substitute a file system that fails (a full disk, a read-only directory) without root.
 */
public interface OutputFileSystem {
  /** Creates {@code file}, which must not exist; fails with FileAlreadyExistsException if it does. */
  OutputChannel createNew(Path file) throws IOException;

  /** Creates a directory and its parents where missing. */
  void createDirectories(Path dir) throws IOException;

  /** Whether anything, a symbolic link included, is at this path. */
  boolean exists(Path path);

  /** Deletes a file this output created (one left empty because nothing could be written to it). */
  default void delete(Path file) throws IOException {
    Files.deleteIfExists(file);
  }

  /**
   * Checks, creating nothing, that files could be created in {@code dir}: the nearest part of
   * the path that exists is a directory this process may write to.
   */
  default void checkDirectory(Path dir) throws IOException {
    Path p = dir.toAbsolutePath();
    while (p != null && !exists(p)) {
      p = p.getParent();
    }
    if (p == null) {
      return;
    }
    if (!Files.isDirectory(p)) {
      throw new java.nio.file.NotDirectoryException(p + " (on the way to " + dir + ")");
    }
    if (!Files.isWritable(p)) {
      throw new java.nio.file.AccessDeniedException(p.toString(), null, "directory not writable");
    }
  }

  /** The real file system. */
  static OutputFileSystem local() {
    return Local.INSTANCE;
  }

  /** The default file system, creating with O_CREAT | O_EXCL | O_NOFOLLOW. */
  enum Local implements OutputFileSystem {
    INSTANCE;

    @Override
    public OutputChannel createNew(Path file) throws IOException {
      FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
          StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS);
      return new OutputChannel() {
        @Override
        public int write(ByteBuffer src) throws IOException {
          return ch.write(src);
        }

        @Override
        public long size() throws IOException {
          return ch.size();
        }

        @Override
        public void truncate(long size) throws IOException {
          ch.truncate(size);
        }

        @Override
        public void close() throws IOException {
          ch.close();
        }
      };
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
      Files.createDirectories(dir);
    }

    @Override
    public boolean exists(Path path) {
      return Files.exists(path, LinkOption.NOFOLLOW_LINKS);
    }
  }
}
