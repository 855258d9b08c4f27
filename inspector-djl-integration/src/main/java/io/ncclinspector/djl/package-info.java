/**
 * NCCL Inspector for Deep Java Library (DJL) training.
 *
 * <p>{@link io.ncclinspector.djl.NcclTrainingListener} is a DJL
 * {@link ai.djl.training.listener.TrainingListener}: attach it to a training configuration and it
 * shares (or starts) the process's {@link io.ncclinspector.NcclInspector}, tags the collectives of
 * the training thread with the global batch index and a phase, adds per-batch communication figures
 * ({@link io.ncclinspector.djl.BatchCommunication}) to the trainer's
 * {@link ai.djl.metric.Metrics}, and logs slow collectives and suspected hangs.
 */
package io.ncclinspector.djl;
