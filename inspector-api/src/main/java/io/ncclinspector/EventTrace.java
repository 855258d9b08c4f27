package io.ncclinspector;

import java.util.List;

/**
 * Where an operation's callbacks fell, as the verbose output writes them ({@code event_trace_sn},
 * {@code event_trace_ts}). Sequence numbers count the operation's callbacks (1 is its start).
 *
 * @param startSequence callback sequence number of the start event (1)
 * @param stopSequence callback sequence number of the stop event, 0 if none came
 * @param channels the kernel channels (verbose mode only; empty otherwise)
 */
public record EventTrace(int startSequence, int stopSequence, List<KernelChannelTrace> channels) {
  /** No trace: what a record carries outside verbose mode when no callback numbers are known. */
  public static final EventTrace NONE = new EventTrace(0, 0, List.of());

  public EventTrace {
    channels = List.copyOf(channels);
  }
}
