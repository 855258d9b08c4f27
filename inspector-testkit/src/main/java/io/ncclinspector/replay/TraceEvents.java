package io.ncclinspector.replay;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A recorded trace, packed for the profiler-table driver: one 128-byte {@code driver_event} per
 * callback (layout in driver/profiler_table_driver.h), in the order NCCL made them.
 *
 * @param events direct buffer holding {@code count} packed events
 * @param maxHandleId largest handle id used by the trace
 * @param maxContextId largest context id used by the trace
 * @param recordedPid process id of the recorded process, from the trace file name, if present
 * @param problems lines that could not be used, each with its file and line number
 * @param endsWithFinalize whether the last event finalizes a communicator (a complete run)
 * @param cutShort where and why reading stopped before the end of the file (a gzip stream that
 *     ends early, damage, a file that is not a trace), if it did; the events before are kept
 * @param linesSkipped lines that could not be used, all of them ({@code problems} lists the
 *     first ones)
 * @param damaged whether reading stopped at damage that hides events the file holds (corrupt gzip
 *     data, a read error), rather than at the end of a file cut short
 */
public record TraceEvents(
    ByteBuffer events,
    int count,
    int maxHandleId,
    int maxContextId,
    OptionalLong recordedPid,
    List<String> problems,
    boolean endsWithFinalize,
    Optional<String> cutShort,
    long linesSkipped,
    boolean damaged) {

  public TraceEvents {
    problems = List.copyOf(problems);
  }

  /** Bytes of one packed event in {@link #events()}: event {@code i} starts at {@code i * eventBytes()}. */
  public static int eventBytes() {
    return DriverEventLayout.EVENT_BYTES;
  }

  /** Events {@code from .. from + n - 1} as a buffer of their own, for the driver. */
  public ByteBuffer slice(int from, int n) {
    return events.slice(from * eventBytes(), n * eventBytes());
  }

  /** How many events open the trace with communicator inits, before its first other call. */
  public int leadingInits() {
    int i = 0;
    while (i < count && op(i) == DriverEventLayout.OP_INIT) {
      i++;
    }
    return i;
  }

  /** How many events close the trace with finalizes, after its last other call (none when every event is an init). */
  public int trailingFinalizes() {
    int first = leadingInits();
    int i = count;
    while (i > first && op(i - 1) == DriverEventLayout.OP_FINI) {
      i--;
    }
    return count - i;
  }

  private int op(int i) {
    return events.get(i * eventBytes() + DriverEventLayout.OP);
  }
}
