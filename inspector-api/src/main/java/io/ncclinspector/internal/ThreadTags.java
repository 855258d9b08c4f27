package io.ncclinspector.internal;

import io.ncclinspector.Phase;
import io.ncclinspector.nativecore.InspectorNative;

/**
 * Step and phase tags of Java threads, mirrored into the native core's thread-local tag (which
 * NCCL's CollApi/P2pApi events read on the thread that enqueues). Tags follow the OS thread: they
 * work for platform threads; a virtual thread may be moved to another carrier between tagging and
 * enqueueing.
 */
public final class ThreadTags {
  private static final ThreadLocal<long[]> CURRENT = ThreadLocal.withInitial(() -> new long[] {-1, 0});

  private ThreadTags() {}

  public static void step(long step) {
    if (step < 0) {
      throw new IllegalArgumentException("a step is not negative: " + step);
    }
    long[] t = CURRENT.get();
    t[0] = step;
    InspectorNative.setThreadTag(t[0], (int) t[1]);
  }

  public static void clearStep() {
    long[] t = CURRENT.get();
    t[0] = -1;
    InspectorNative.setThreadTag(t[0], (int) t[1]);
  }

  public static Phase phase(String name) {
    int id = PhaseNames.idOf(name);
    long[] t = CURRENT.get();
    long previous = t[1];
    t[1] = id;
    InspectorNative.setThreadTag(t[0], id);
    Thread owner = Thread.currentThread();
    return new Phase() {
      private boolean closed;

      @Override
      public String name() {
        return name;
      }

      @Override
      public void close() {
        if (closed) {
          return;
        }
        if (Thread.currentThread() != owner) {
          throw new IllegalStateException("phase '" + name + "' was opened on " + owner.getName()
              + " and must be closed there");
        }
        closed = true;
        long[] now = CURRENT.get();
        now[1] = previous;
        InspectorNative.setThreadTag(now[0], (int) previous);
      }
    };
  }
}
