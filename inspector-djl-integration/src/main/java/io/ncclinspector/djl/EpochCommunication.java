package io.ncclinspector.djl;

import java.util.Objects;

/**
 * The NCCL communication of one finished epoch: the records that reached the listener between the
 * start of the epoch and its {@code onEpoch} callback.
 *
 * @param epoch epoch index, from 0
 * @param firstStep global index of the epoch's first training batch
 * @param trainingBatches training batches in the epoch
 * @param validationBatches validation batches in the epoch
 * @param figures what completed during the epoch
 */
public record EpochCommunication(
    int epoch, long firstStep, long trainingBatches, long validationBatches, CommunicationFigures figures) {

  public EpochCommunication {
    Objects.requireNonNull(figures, "figures");
  }
}
