package io.ncclinspector.internal;

import io.ncclinspector.InspectorEvent;
import java.util.List;

/**
 * A stage of the pipeline that takes events: the queue in front of a sink's thread
 * ({@link AsyncSink}), the listener fan-out ({@link ListenerDispatcher}), the exporters' fan-out.
 * What a stage does with each kind of event is decided by the event itself
 * ({@link InspectorEvent#deliverTo}), never by testing its type.
 */
public interface EventSink {
  /** Takes an event; never blocks its caller (a full queue drops and counts). */
  void accept(InspectorEvent event);

  /**
   * Takes events in their order, as {@link #accept} each would: what the dump thread drained in
   * one go. A stage with a queue takes them at once (one hand-over, not one per event).
   */
  default void acceptAll(List<? extends InspectorEvent> events) {
    for (int i = 0; i < events.size(); i++) {
      accept(events.get(i));
    }
  }

  /** Called at the dump interval, after the events drained before it. */
  default void flush() {}

  /** Called when the program asked for output now ({@code NcclInspector.flush()}). */
  default void flushNow() {
    flush();
  }

  /** Called once, after the last event. */
  default void close() {}
}
