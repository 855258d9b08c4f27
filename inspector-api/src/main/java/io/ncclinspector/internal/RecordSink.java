package io.ncclinspector.internal;

import io.ncclinspector.OperationRecord;

/** Where the dump thread delivers what it drains. Called on the dump thread only. */
public interface RecordSink {
  void record(OperationRecord record);

  default void communicator(CommunicatorEvent event) {}

  /** Any other event (slow collective, suspected hang) routed through an {@link AsyncSink}. */
  default void other(Object event) {}

  /** Called at the flush interval and before close. */
  default void flush() {}

  /** Called when a flush was asked for explicitly ({@code NcclInspector.flush()}). */
  default void flushRequested() {
    flush();
  }

  /** Called once, after the last record. */
  default void close() {}
}
