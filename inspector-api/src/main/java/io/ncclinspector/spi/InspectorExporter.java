package io.ncclinspector.spi;

import io.ncclinspector.InspectorListener;
import io.ncclinspector.SlowCollectiveEvent;

/**
 * An exporter started for one inspector ({@link ExporterFactory#start}): it hears every event
 * through the {@link InspectorListener} methods, on a thread of its own behind a bounded queue, so
 * that a slow exporter never holds up the inspector (what its queue cannot take is counted as
 * {@code <name>_backlog_full}). Unlike a listener it gets every slow collective, those the rate
 * limit held back from listeners included ({@link SlowCollectiveEvent#rateLimited()}), and it is
 * told when to flush.
 *
 * <p>Events come in order from each source: records and communicator events from the thread that
 * drains NCCL's records, slow collectives and their summaries from the analysis thread, suspected
 * hangs from the watchdog.
 */
public interface InspectorExporter extends InspectorListener, AutoCloseable {

  /**
   * Whether the exporter would use completed operations now. While it says no, the inspector does
   * not queue {@link io.ncclinspector.OperationRecord}s for it (they are not counted as dropped);
   * its other events still come. Asked once per batch of records on the thread that drains NCCL's
   * records, so it must be cheap and never block. By default yes; the JFR exporter says no while
   * no recording has its operation event enabled.
   */
  default boolean wantsOperations() {
    return true;
  }

  /** Called at the inspector's dump interval, after the records drained before it. */
  default void flush() {}

  /**
   * Called when the program asked for output now ({@code NcclInspector.flush()}); by default the
   * same as {@link #flush()}. An exporter that writes less often than the dump interval writes
   * here at once.
   */
  default void flushNow() {
    flush();
  }

  /** Called once, after the last event, on the exporter's thread. */
  @Override
  default void close() {}
}
