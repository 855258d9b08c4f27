package io.ncclinspector.djl;

import ai.djl.Device;
import ai.djl.Model;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.Trainer;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.listener.TrainingListener;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;

/** A small MLP regression on synthetic data, trained on the PyTorch CPU engine. */
final class TinyTraining {
  static final int FEATURES = 8;
  static final int BATCH = 8;

  private TinyTraining() {}

  static Model model() {
    Model model = Model.newInstance("nccl-inspector-mlp", "PyTorch");
    model.setBlock(new SequentialBlock()
        .add(Linear.builder().setUnits(16).build())
        .add(Activation::relu)
        .add(Linear.builder().setUnits(1).build()));
    return model;
  }

  /** {@code samples} random points whose label is the sum of their features, in batches of {@link #BATCH}. */
  static ArrayDataset dataset(NDManager manager, int samples) {
    NDArray x = manager.randomUniform(-1, 1, new Shape(samples, FEATURES));
    NDArray y = x.sum(new int[] {1}, true);
    return new ArrayDataset.Builder().setData(x).optLabels(y).setSampling(BATCH, false).build();
  }

  /** A trainer on the CPU with these listeners, initialised for the dataset's shape. */
  static Trainer trainer(Model model, TrainingListener... listeners) {
    DefaultTrainingConfig config = new DefaultTrainingConfig(Loss.l2Loss())
        .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.05f)).build())
        .optDevices(new Device[] {Device.cpu()})
        .addTrainingListeners(listeners);
    Trainer trainer = model.newTrainer(config);
    trainer.initialize(new Shape(BATCH, FEATURES));
    return trainer;
  }
}
