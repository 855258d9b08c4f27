package io.ncclinspector.internal.output;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

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

  /**
   * The real file system, writing with {@code O_DIRECT} in directories that take it
   * ({@link DirectAppendChannel}; for line files only: a write may leave a block of newlines at the
   * end for a moment), and like {@link #local()} elsewhere.
   */
  static OutputFileSystem localDirect() {
    return DirectLocal.INSTANCE;
  }

  /** Bytes an {@link AccountedFile} on this file system should collect before it writes. */
  default int writeBytes() {
    return 1 << 16;
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

  /**
   * {@link #local()} with {@code O_DIRECT} where a directory takes it: whether it does is tried
   * once per directory, on a probe file of a unique name (created exclusively, then deleted).
   */
  enum DirectLocal implements OutputFileSystem {
    INSTANCE;

    /** The alignment used for O_DIRECT: a page, or the file store's block if larger. */
    private static final int MIN_BLOCK = 4096;
    private final Map<Path, Integer> blocks = new ConcurrentHashMap<>();

    @Override
    public OutputChannel createNew(Path file) throws IOException {
      int block = blocks.computeIfAbsent(file.toAbsolutePath().getParent(), DirectLocal::probe);
      if (block == 0) {
        return Local.INSTANCE.createNew(file);
      }
      FileChannel ch;
      try {
        ch = openDirect(file);
      } catch (FileAlreadyExistsException taken) {
        throw taken; /* the caller takes the next name */
      } catch (IOException | UnsupportedOperationException e) {
        /* The probe passed, this open did not: the directory is taken as one without O_DIRECT from
           now on. The exclusive open created the file if anything: it is ours, and empty. */
        blocks.put(file.toAbsolutePath().getParent(), 0);
        Files.deleteIfExists(file);
        return Local.INSTANCE.createNew(file);
      }
      return new DirectAppendChannel(ch, block);
    }

    @Override
    public int writeBytes() {
      return 1 << 20;
    }

    /** Tests: {@code dir} is taken as a directory without O_DIRECT (as a probe that failed finds it). */
    void takeAsPlain(Path dir) {
      blocks.put(dir.toAbsolutePath(), 0);
    }

    /** A new file (O_CREAT | O_EXCL | O_NOFOLLOW) opened with O_DIRECT, for reading back its last block too. */
    private static FileChannel openDirect(Path file) throws IOException {
      return FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
          StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS, ExtendedOpenOption.DIRECT);
    }

    /** The block size to align O_DIRECT writes to in {@code dir}, or 0 if it does not take them. */
    private static int probe(Path dir) {
      Path probe = dir.resolve(".nccl-inspector-direct-probe-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
      boolean ours = true;
      try {
        int block = Math.max(MIN_BLOCK, (int) Math.min(1 << 20, Files.getFileStore(dir).getBlockSize()));
        try (FileChannel ch = openDirect(probe)) {
          ByteBuffer b = ByteBuffer.allocateDirect(2 * block).alignedSlice(block);
          b.limit(block);
          ch.write(b, 0); /* some file systems take the flag and refuse the write */
        }
        return block;
      } catch (FileAlreadyExistsException taken) {
        ours = false; /* not this call's file: left alone */
        return 0;
      } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
        return 0;
      } finally {
        if (ours) {
          try {
            /* Also after a failed open: on tmpfs the open creates the file, then refuses O_DIRECT. */
            Files.deleteIfExists(probe);
          } catch (IOException | RuntimeException ignored) {
            // nothing to do: a probe file left behind is empty
          }
        }
      }
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
      Local.INSTANCE.createDirectories(dir);
    }

    @Override
    public boolean exists(Path path) {
      return Local.INSTANCE.exists(path);
    }
  }
}
