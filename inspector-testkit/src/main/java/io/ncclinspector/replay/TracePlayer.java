package io.ncclinspector.replay;

import io.ncclinspector.NcclInspector;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Plays a recorded trace into an enabled inspector piece by piece, as NCCL would call it, on the
 * calling thread and with the real clock: a stand-in for NCCL where there is none (a laptop, a CI
 * machine), for examples and for tests of code that listens to the inspector. It calls the plugin
 * table of the very library the inspector pointed NCCL at, so everything after the callbacks is
 * the real thing.
 *
 * <p>By default the callbacks run on the real clock, so CPU times are those of the replay. Opened
 * with {@code followTraceClock}, the core's clock follows the trace's timestamps instead, as in
 * {@link TraceReplayer}: CPU times, enqueue wall times among them, are those of the recorded run
 * (until {@link #close()}).
 *
 * <p>One player at a time per process (it stands in for NCCL's single profiler slot): opening a
 * second one, or replaying with {@link TraceReplayer}, while one is open fails.
 */
public final class TracePlayer implements AutoCloseable {
  /* NCCL's event type bits (profiler ABI). */
  private static final int TYPE_GROUP = 1, TYPE_COLL = 1 << 1, TYPE_P2P = 1 << 2;
  /** The events NCCL makes on the enqueuing thread before an operation's own start. */
  private static final int TYPES_BEFORE_OPERATION = TYPE_GROUP | (1 << 8) /* GroupApi */ | (1 << 9) /* CollApi */
      | (1 << 10) /* P2pApi */ | (1 << 11) /* KernelLaunch */;

  private final TraceEvents events;
  private final DriverLease lease;
  private final boolean followTraceClock;
  private int next;
  private boolean closed;

  private TracePlayer(TraceEvents events, DriverLease lease, boolean followTraceClock) {
    this.events = events;
    this.lease = lease;
    this.followTraceClock = followTraceClock;
  }

  /** Reads a trace file and opens the inspector's library as NCCL would. */
  public static TracePlayer open(NcclInspector inspector, Path trace) throws IOException {
    return open(inspector, new TraceReader().read(trace));
  }

  /**
   * Opens the inspector's library as NCCL would and prepares the trace.
   *
   * @throws IllegalStateException if the inspector is not active (disabled or closed), if another
   *     player or replay is open in this process, or if the driver cannot load or prepare
   */
  public static TracePlayer open(NcclInspector inspector, TraceEvents events) {
    return open(inspector, events, false);
  }

  /** Opens a player whose callbacks run on the trace's clock rather than the real one. */
  public static TracePlayer open(NcclInspector inspector, TraceEvents events, boolean followTraceClock) {
    Objects.requireNonNull(events, "events");
    if (!inspector.isActive()) {
      throw new IllegalStateException("the inspector is not active (disabled or closed): nothing would hear the trace");
    }
    String library = inspector.status().libraryPath().orElseThrow().toString();
    DriverLease lease = DriverLease.take("a TracePlayer");
    try {
      if (ProfilerTableDriver.open(library) != 0) {
        throw new IllegalStateException("cannot open the profiler table of " + library + ": " + ProfilerTableDriver.error());
      }
      if (ProfilerTableDriver.prepare(events.maxHandleId(), events.maxContextId()) != 0) {
        ProfilerTableDriver.close();
        throw new IllegalStateException("cannot prepare the trace: " + ProfilerTableDriver.error());
      }
      return new TracePlayer(events, lease, followTraceClock);
    } catch (RuntimeException e) {
      lease.close();
      throw e;
    }
  }

  /** Callbacks in the trace. */
  public int size() {
    return events.count();
  }

  /** Callbacks not played yet. */
  public int remaining() {
    return events.count() - next;
  }

  /** Makes the next {@code n} callbacks (fewer at the end of the trace); returns how many. */
  public int play(int n) {
    if (closed) {
      throw new IllegalStateException("closed");
    }
    int count = Math.max(0, Math.min(n, remaining()));
    if (count > 0) {
      ByteBuffer slice = events.events().slice(next * DriverEventLayout.EVENT_BYTES,
          count * DriverEventLayout.EVENT_BYTES);
      if (ProfilerTableDriver.run(slice, count, followTraceClock ? 1 : 0, null) < 0) {
        throw new IllegalStateException("the trace driver failed: " + ProfilerTableDriver.error());
      }
      next += count;
    }
    return count;
  }

  /**
   * Plays the next {@code operations} collective or P2P operations: every callback up to the
   * events that lead to the operation after them (its API, group and launch events, which carry
   * the enqueuing thread's step and phase tags), or to the end of the trace. Returns the number
   * of operations started. Tags set on the calling thread between two calls therefore apply to
   * the operations of the second.
   */
  public int playOperations(int operations) {
    ByteBuffer b = events.events();
    int started = 0;
    int end = next;
    int lastOperationStart = next - 1;
    while (end < events.count()) {
      int at = end * DriverEventLayout.EVENT_BYTES;
      if (startsAny(b, at, TYPE_COLL | TYPE_P2P)) {
        if (started == operations) {
          break;
        }
        started++;
        lastOperationStart = end;
      }
      end++;
    }
    if (end < events.count()) {
      /* Leave the next operation's lead-in to it: cut before the first API, group or launch event
         that follows this piece's last operation start (events after the cut keep their order). */
      for (int i = end - 1; i > lastOperationStart; i--) {
        int at = i * DriverEventLayout.EVENT_BYTES;
        if (startsAny(b, at, TYPES_BEFORE_OPERATION)) {
          end = i;
        }
      }
    }
    play(end - next);
    return started;
  }

  /** Whether the packed event at {@code at} is a start event of one of the types in {@code types}. */
  private static boolean startsAny(ByteBuffer b, int at, int types) {
    return b.get(at + DriverEventLayout.OP) == DriverEventLayout.OP_START
        && (b.getInt(at + DriverEventLayout.TYPE) & types) != 0;
  }

  /** Plays whatever is left. */
  public void playAll() {
    play(remaining());
  }

  /**
   * Finalizes the communicators the trace left open (a trace cut short), as the process's teardown
   * would; the number finalized. Call it after the inspector's close, so that the output is the
   * run's, and before {@link #close}: a communicator left live in this JVM keeps the next enable's
   * deferred mode from starting (it starts only with none live), as {@link TraceReplayer} knows.
   */
  public int finalizeOpen() {
    if (closed) {
      throw new IllegalStateException("the player is closed");
    }
    return ProfilerTableDriver.finalizeOpen();
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      if (followTraceClock) {
        ProfilerTableDriver.setVirtualClock(0, 0, 0);
      }
      ProfilerTableDriver.close();
      lease.close();
    }
  }
}
