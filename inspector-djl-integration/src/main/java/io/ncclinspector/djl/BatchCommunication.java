package io.ncclinspector.djl;

import java.util.Objects;

/**
 * The NCCL communication reported at one DJL batch callback.
 *
 * <p>Attribution is by completion: the figures are those of the operations whose records reached
 * the listener between the previous batch callback (or the start of training) and this one.
 * Records arrive asynchronously, a fraction of a millisecond to a few milliseconds after NCCL's
 * kernels finish, and a collective enqueued just before the callback may still be running on the
 * GPU; such operations are counted at the next callback. For exact attribution after the fact, use
 * the step tag every {@link io.ncclinspector.OperationRecord} carries (and
 * {@link NcclTrainingListener#epochOfStep(long)}).
 *
 * @param kind training or validation batch
 * @param epoch epoch index, from 0
 * @param batchInEpoch index of this batch among the epoch's batches of its kind, from 0
 * @param step the step tag of this batch's collectives: for a training batch its global index
 *     (from 0, across epochs); for a validation batch the index of the next training batch (tags
 *     do not advance during validation)
 * @param figures what completed in the batch's window
 */
public record BatchCommunication(BatchKind kind, int epoch, long batchInEpoch, long step, CommunicationFigures figures) {

  public BatchCommunication {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(figures, "figures");
  }
}
