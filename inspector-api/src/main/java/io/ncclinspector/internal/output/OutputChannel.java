package io.ncclinspector.internal.output;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/** A file opened for appending that can be cut back: what {@link AccountedFile} writes to. */
public interface OutputChannel extends Closeable {
  /** Writes some bytes of {@code src} at the end; returns how many (as {@link java.nio.channels.FileChannel#write}). */
  int write(ByteBuffer src) throws IOException;

  /** The file's size. */
  long size() throws IOException;

  /** Cuts the file back to {@code size} bytes. */
  void truncate(long size) throws IOException;

  /**
   * Makes the file hold exactly the bytes written, where a channel leaves more after a write
   * ({@link DirectAppendChannel}'s padding of its last block). Called at every flush and by
   * {@link #close}.
   */
  default void settle() throws IOException {}
}
