package io.ncclinspector;

/**
 * Everything the inspector tells: completed operations, communicators created and destroyed, slow
 * collectives (and the summaries of those the rate limit held back) and suspected hangs: a closed
 * set of kinds. Each kind reaches an {@link InspectorListener} (and an exporter, which is one)
 * through its own method ({@link #deliverTo}), so no code that receives events tests their type.
 */
public sealed interface InspectorEvent
    permits OperationRecord, CommunicatorEvent, SlowCollectiveEvent, SlowCollectiveSummary, HangEvent {

  /** The communicator the event is about. */
  CommunicatorInfo communicator();

  /** Calls the listener's method for this kind of event. */
  void deliverTo(InspectorListener listener);
}
