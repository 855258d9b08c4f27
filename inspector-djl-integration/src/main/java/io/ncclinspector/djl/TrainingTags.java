package io.ncclinspector.djl;

import io.ncclinspector.NcclInspector;
import io.ncclinspector.Phase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The step and phase tags the listener puts on the training thread. DJL calls listeners on the
 * thread that trains, so tags are set from the callbacks; a tag applies to what the thread
 * enqueues after the callback that set it. The phase is a nested {@link Phase}: closing it restores
 * whatever phase the application had around the training.
 */
final class TrainingTags {
  private static final Logger log = LoggerFactory.getLogger(TrainingTags.class);

  private final NcclInspector inspector;
  private Phase phase;
  private Thread thread;

  TrainingTags(NcclInspector inspector) {
    this.inspector = inspector;
  }

  /** Tags what the calling thread enqueues from now on with this step and phase. */
  void set(long step, String phaseName) {
    Thread current = Thread.currentThread();
    if (phase != null && (current != thread || !phase.name().equals(phaseName))) {
      closePhase();
    }
    inspector.step(step);
    if (phase == null) {
      phase = inspector.phase(phaseName);
      thread = current;
    }
  }

  /** Removes the step tag and closes the phase (on the thread that opened it). */
  void clear() {
    closePhase();
    inspector.clearStep();
  }

  private void closePhase() {
    if (phase == null) {
      return;
    }
    if (Thread.currentThread() == thread) {
      phase.close();
    } else {
      /* A phase can only be closed on its own thread; that thread's tag stays until it sets another. */
      log.debug("NCCL Inspector: phase '{}' was opened on {}; leaving it there", phase.name(), thread.getName());
    }
    phase = null;
    thread = null;
  }
}
