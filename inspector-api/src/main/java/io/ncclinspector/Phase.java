package io.ncclinspector;

/**
 * A phase tag on the current thread ({@link NcclInspector#phase}); closing it restores the
 * thread's previous phase. Use it in try-with-resources, on the thread that opened it.
 */
public interface Phase extends AutoCloseable {
  /** The phase name. */
  String name();

  @Override
  void close();
}
