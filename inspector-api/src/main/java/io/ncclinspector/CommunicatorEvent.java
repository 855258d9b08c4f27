package io.ncclinspector;

import java.util.Objects;

/**
 * A communicator was created (NCCL init, or already live when a listener registered) or destroyed
 * (NCCL finalize; its records have all been delivered before).
 *
 * @param change created or destroyed
 * @param communicator what NCCL said about it
 */
public record CommunicatorEvent(Change change, CommunicatorInfo communicator)
    implements InspectorEvent {

  /** What happened to the communicator. */
  public enum Change { CREATED, DESTROYED }

  public CommunicatorEvent {
    Objects.requireNonNull(change, "change");
    Objects.requireNonNull(communicator, "communicator");
  }

  @Override
  public void deliverTo(InspectorListener listener) {
    if (created()) {
      listener.communicatorCreated(communicator);
    } else {
      listener.communicatorDestroyed(communicator);
    }
  }

  /** Whether the communicator was created (rather than destroyed). */
  public boolean created() {
    return change == Change.CREATED;
  }
}
