package io.ncclinspector;

/**
 * A registered listener. Closing it removes the listener: no event is delivered after close
 * returns. Close waits for a callback in progress at most the listener close timeout
 * ({@link InspectorConfig#listenerCloseTimeout()}); a listener still inside a callback then is
 * abandoned: interrupted, never called again, its queued events counted as dropped. Closing from
 * the listener's own callback returns at once.
 */
public interface ListenerRegistration extends AutoCloseable {
  /** Events not delivered: the listener's queue was full, or it was abandoned with events queued. */
  long dropped();

  /** Events delivered so far. */
  long delivered();

  /** Whether the listener was abandoned because it did not finish within the close timeout. */
  default boolean abandoned() {
    return false;
  }

  @Override
  void close();
}
