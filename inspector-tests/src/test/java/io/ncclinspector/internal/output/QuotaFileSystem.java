package io.ncclinspector.internal.output;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A disk that fills up, for tests without root: files are real (in a temporary directory), but
 * all of them together may hold at most {@code quota} bytes. A write past it writes what fits and
 * returns that count, and the next write fails with "No space left on device", as write(2) does;
 * truncating frees space. {@link #setQuota} frees (or takes) space while the test runs, and
 * {@link #denyDirectory} makes a directory unwritable as a read-only one is for a non-root user.
 */
public final class QuotaFileSystem implements OutputFileSystem {
  private long quota;
  private long used;
  private Path denied;

  public QuotaFileSystem(long quota) {
    this.quota = quota;
  }

  public synchronized void setQuota(long bytes) {
    quota = bytes;
  }

  public synchronized long used() {
    return used;
  }

  public synchronized void denyDirectory(Path dir) {
    denied = dir.toAbsolutePath();
  }

  @Override
  public synchronized OutputChannel createNew(Path file) throws IOException {
    if (denied != null && file.toAbsolutePath().startsWith(denied)) {
      throw new AccessDeniedException(file.toString(), null, "Permission denied");
    }
    if (Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      throw new FileAlreadyExistsException(file.toString());
    }
    OutputChannel real = OutputFileSystem.local().createNew(file);
    return new OutputChannel() {
      @Override
      public int write(ByteBuffer src) throws IOException {
        synchronized (QuotaFileSystem.this) {
          long free = quota - used;
          if (free <= 0) {
            throw new IOException("No space left on device");
          }
          ByteBuffer part = src.slice();
          part.limit((int) Math.min(part.remaining(), free));
          int n = real.write(part);
          src.position(src.position() + n);
          used += n;
          return n;
        }
      }

      @Override
      public long size() throws IOException {
        return real.size();
      }

      @Override
      public void truncate(long size) throws IOException {
        synchronized (QuotaFileSystem.this) {
          long before = real.size();
          real.truncate(size);
          used -= before - real.size();
        }
      }

      @Override
      public void close() throws IOException {
        real.close();
      }
    };
  }

  @Override
  public void createDirectories(Path dir) throws IOException {
    if (denied != null && dir.toAbsolutePath().startsWith(denied) && !Files.isDirectory(dir)) {
      throw new AccessDeniedException(dir.toString(), null, "Permission denied");
    }
    Files.createDirectories(dir);
  }

  @Override
  public boolean exists(Path path) {
    return Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS);
  }

  @Override
  public void checkDirectory(Path dir) throws IOException {
    if (denied != null && dir.toAbsolutePath().startsWith(denied)) {
      throw new AccessDeniedException(dir.toString(), null, "directory not writable");
    }
    OutputFileSystem.super.checkDirectory(dir);
  }

  /** Deletes a file the test made, giving its space back. */
  public synchronized void delete(Path file) throws IOException {
    used -= Files.size(file);
    Files.delete(file);
  }
}
