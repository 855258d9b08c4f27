package io.ncclinspector;

/** A registered listener. Closing it removes the listener: no event is delivered after close returns. */
public interface ListenerRegistration extends AutoCloseable {
  /** Events not delivered because the listener's queue was full. */
  long dropped();

  /** Events delivered so far. */
  long delivered();

  @Override
  void close();
}
