package io.ncclinspector;

import io.ncclinspector.nativecore.ProfilerTableDriver;
import io.ncclinspector.replay.TraceEvents;
import io.ncclinspector.replay.TraceReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Drives packed trace events through the plugin table of an enabled inspector, as NCCL would,
 * on the calling thread, in steps (handles stay mapped between steps).
 */
public final class Driving implements AutoCloseable {
  private final TraceEvents events;
  private int next;

  private Driving(TraceEvents events) {
    this.events = events;
  }

  /** Opens the inspector's library and prepares for a trace file. */
  public static Driving open(NcclInspector inspector, Path trace) throws IOException {
    TraceEvents events = new TraceReader().read(trace);
    if (ProfilerTableDriver.open(inspector.libraryPath().orElseThrow().toString()) != 0) {
      throw new IllegalStateException(ProfilerTableDriver.error());
    }
    ProfilerTableDriver.prepare(events.maxHandleId(), events.maxContextId());
    return new Driving(events);
  }

  public int size() {
    return events.count();
  }

  /** Makes the next n calls (real clock). */
  public Driving run(int n) {
    int count = Math.min(n, events.count() - next);
    ByteBuffer slice = events.events().slice(next * ProfilerTableDriver.EVENT_BYTES,
        count * ProfilerTableDriver.EVENT_BYTES);
    ProfilerTableDriver.run(slice, count, 0, null);
    next += count;
    return this;
  }

  public Driving runAll() {
    return run(events.count() - next);
  }

  @Override
  public void close() {
    ProfilerTableDriver.close();
  }
}
