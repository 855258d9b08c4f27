package io.ncclinspector.djl;

import java.util.ArrayList;
import java.util.List;

/**
 * Maps step tags (global training batch indices) to epochs: it keeps the first step of each epoch.
 * Written by the training thread, read from any thread (the inspector's listener thread logs with
 * it); every write publishes a new immutable list.
 */
final class EpochIndex {
  private volatile List<Long> firstSteps = List.of(0L);

  /** Forgets every epoch and starts epoch 0 at step 0. */
  void reset() {
    firstSteps = List.of(0L);
  }

  /** The next epoch starts at this step. */
  void startEpoch(long firstStep) {
    List<Long> next = new ArrayList<>(firstSteps);
    next.add(firstStep);
    firstSteps = List.copyOf(next);
  }

  /**
   * The epoch a step belongs to: the last epoch that had started by then (an epoch without training
   * batches shares its first step with the next one, which wins). -1 for an untagged step (-1).
   */
  int epochOf(long step) {
    if (step < 0) {
      return -1;
    }
    List<Long> steps = firstSteps;
    for (int i = steps.size() - 1; i >= 0; i--) {
      if (steps.get(i) <= step) {
        return i;
      }
    }
    return -1;
  }
}
