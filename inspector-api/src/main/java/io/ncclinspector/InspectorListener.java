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

  /** A collective ran slow against the baseline of its class. */
  default void slowCollective(SlowCollectiveEvent event) {}

  /** An operation has been in flight longer than the hang timeout. Reported once per operation. */
  default void hangSuspected(HangEvent event) {}
}
