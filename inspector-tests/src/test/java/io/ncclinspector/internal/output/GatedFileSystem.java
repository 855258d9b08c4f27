package io.ncclinspector.internal.output;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * The local file system (page cache), for tests of a disk that stops answering: every write waits
 * while the gate is shut ({@link #open} opens it), as a write to a hung network file system does.
 * It notes which threads wrote.
 */
public final class GatedFileSystem implements OutputFileSystem {
  private final Set<String> writers = ConcurrentHashMap.newKeySet();
  private final CountDownLatch gate;

  /** A disk that answers at once. */
  public GatedFileSystem() {
    this(false);
  }

  /** {@code shut}: writes wait until {@link #open}. */
  public GatedFileSystem(boolean shut) {
    gate = new CountDownLatch(shut ? 1 : 0);
  }

  public void open() {
    gate.countDown();
  }

  /** The names of the threads that wrote. */
  public Set<String> writers() {
    return Set.copyOf(writers);
  }

  @Override
  public OutputChannel createNew(Path file) throws IOException {
    OutputChannel real = OutputFileSystem.local().createNew(file);
    return new OutputChannel() {
      @Override
      public int write(ByteBuffer src) throws IOException {
        writers.add(Thread.currentThread().getName());
        try {
          gate.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException();
        }
        return real.write(src);
      }

      @Override
      public long size() throws IOException {
        return real.size();
      }

      @Override
      public void truncate(long size) throws IOException {
        real.truncate(size);
      }

      @Override
      public void settle() throws IOException {
        real.settle();
      }

      @Override
      public void close() throws IOException {
        real.close();
      }
    };
  }

  @Override
  public void createDirectories(Path d) throws IOException {
    OutputFileSystem.local().createDirectories(d);
  }

  @Override
  public boolean exists(Path path) {
    return OutputFileSystem.local().exists(path);
  }
}
