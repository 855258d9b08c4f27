package io.ncclinspector;

/**
 * Receives what the inspector sees, on a dedicated JVM thread of its registration (never on
 * NCCL's threads), in order. Implement the methods you need. A listener that is slow only loses
 * its own events once its queue is full (counted by {@link ListenerRegistration#dropped()}); one
 * that throws is logged and keeps receiving.
 */
public interface InspectorListener {
  /** A communicator was created (NCCL init) or was already live when the inspector started. */
  default void communicatorCreated(CommunicatorInfo communicator) {}

  /** A communicator was destroyed (NCCL finalize); its records have all been delivered before. */
  default void communicatorDestroyed(CommunicatorInfo communicator) {}

  /** A collective or P2P operation completed. */
  default void operationCompleted(OperationRecord record) {}

  /**
   * A collective ran slow against what is normal for its class ({@link SlowCollectiveDetection}).
   * At most {@link SlowCollectiveDetection#maxEventsPerInterval()} per class and interval come
   * here; the others are summed up in {@link #slowCollectivesSuppressed}.
   */
  default void slowCollective(SlowCollectiveEvent event) {}

  /**
   * Slow collectives of one class that the rate limit held back during an interval, counted, with
   * the worst of them; delivered once the interval is over (or when the communicator or the
   * inspector closes).
   */
  default void slowCollectivesSuppressed(SlowCollectiveSummary summary) {}

  /** An operation has been in flight longer than the hang timeout. Reported once per operation. */
  default void hangSuspected(HangEvent event) {}
}
