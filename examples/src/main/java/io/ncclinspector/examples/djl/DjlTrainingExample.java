package io.ncclinspector.examples.djl;

import ai.djl.Device;
import ai.djl.Model;
import ai.djl.metric.Metrics;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.EasyTrain;
import ai.djl.training.Trainer;
import ai.djl.training.TrainingResult;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.listener.TrainingListener;
import ai.djl.training.listener.TrainingListenerAdapter;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.djl.BatchCommunication;
import io.ncclinspector.djl.BatchKind;
import io.ncclinspector.djl.CommunicationFigures;
import io.ncclinspector.djl.EpochCommunication;
import io.ncclinspector.djl.MetricNames;
import io.ncclinspector.djl.NcclTrainingListener;
import io.ncclinspector.djl.OperationFigures;
import io.ncclinspector.replay.TracePlayer;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * Trains a small MLP with DJL on the CPU (PyTorch engine) with an {@link NcclTrainingListener}
 * attached, and prints the NCCL communication figures of every batch, of every epoch and of the
 * whole training.
 *
 * <p><b>Where the communication comes from.</b> A machine without a GPU has no NCCL. Here the
 * gradient all-reduce of each batch is a stand-in: the example plays the next operations of a
 * recorded NCCL trace ({@code examples/traces/h3_mix-trace-pid1061.jsonl.gz}: rank 0 of three ranks
 * sharing one NVIDIA H200, NCCL 2.28.9, 262 collective and point-to-point operations) into the
 * NCCL Inspector with {@link TracePlayer}, exactly as NCCL would call it, from a DJL listener that
 * runs right after the backward pass. The DJL training is real; the communication figures (message
 * sizes, H200 kernel times, bandwidths) are the recorded ones. With a real NCCL-based training,
 * drop the stand-in listener: {@link NcclTrainingListener} is all that is needed.
 *
 * <p>Run from the project root:
 *
 * <pre>
 * java -cp "examples/target/examples-0.1.0-SNAPSHOT.jar:examples/target/lib/*" \
 *     io.ncclinspector.examples.djl.DjlTrainingExample [trace.jsonl.gz]
 * </pre>
 *
 * <p>DJL loads PyTorch from the {@code pytorch-native-cpu} and {@code pytorch-jni} jars on the
 * class path (extracting them once to {@code ~/.djl.ai}); the example turns on DJL's offline mode
 * ({@code ai.djl.offline}) unless it is set, so nothing is downloaded.
 */
public final class DjlTrainingExample {
  private static final String BUNDLED_TRACE = "h3_mix-trace-pid1061.jsonl.gz";
  private static final int FEATURES = 16;
  private static final int BATCH = 32;
  private static final int EPOCHS = 3;
  private static final int TRAINING_BATCHES = 8;
  private static final int VALIDATION_BATCHES = 2;
  /** Recorded operations played as the communication of one training batch. */
  private static final int OPERATIONS_PER_BATCH = 10;
  /** Recorded operations played at each validation batch (a metric all-reduce, say). */
  private static final int OPERATIONS_PER_VALIDATION = 1;

  private DjlTrainingExample() {}

  public static void main(String[] args) throws Exception {
    if (System.getProperty("ai.djl.offline") == null) {
      System.setProperty("ai.djl.offline", "true");
    }
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    Path trace = traceFile(args);
    if (trace == null) {
      System.err.println("trace not found: pass its path, or run from the project root (examples/traces/"
          + BUNDLED_TRACE + ")");
      System.exit(2);
    }
    run(trace, System.out);
  }

  static void run(Path trace, PrintStream out) throws Exception {
    out.println("NCCL Inspector + DJL: a small MLP trained on the CPU, with an NcclTrainingListener attached.");
    out.println("No NCCL on this machine: the gradient all-reduce is a stand-in. The communication below comes");
    out.println("from a recorded H200 trace (" + trace.getFileName() + ": rank 0 of 3 ranks sharing one H200,");
    out.println("NCCL 2.28.9), played into the inspector as NCCL would call it; sizes, kernel times and");
    out.println("bandwidths are the recorded ones. The DJL training itself is real.");
    out.println();

    Path dumpDirectory = Files.createTempDirectory("nccl-inspector-djl-");
    /* Enable the inspector at startup, before NCCL would create its communicators; the listener
       shares it. (Without this, the listener enables one itself from its inspectorConfig.) */
    InspectorConfig config = InspectorConfig.builder().fromEnvironment()
        .dumpDirectory(dumpDirectory).minMessageBytes(0).requireKernelTiming(false).build();
    NcclInspector inspector = NcclInspector.enable(config);
    try {
      StepTally byStep = new StepTally();
      inspector.addListener(byStep);
      train(inspector, trace, byStep, out);
    } finally {
      inspector.close();
    }
  }

  private static void train(NcclInspector inspector, Path trace, StepTally byStep, PrintStream out)
      throws Exception {
    TracePlayer player = TracePlayer.open(inspector, trace);
    try (Model model = Model.newInstance("mlp", "PyTorch"); NDManager data = NDManager.newBaseManager()) {
      model.setBlock(new SequentialBlock()
          .add(Linear.builder().setUnits(64).build())
          .add(Activation::relu)
          .add(Linear.builder().setUnits(1).build()));
      ArrayDataset train = dataset(data, TRAINING_BATCHES * BATCH);
      ArrayDataset validate = dataset(data, VALIDATION_BATCHES * BATCH);

      NcclTrainingListener nccl = NcclTrainingListener.builder().onBatch(b -> printBatch(out, b)).build();
      DefaultTrainingConfig trainingConfig = new DefaultTrainingConfig(Loss.l2Loss())
          .optOptimizer(Optimizer.adam().optLearningRateTracker(Tracker.fixed(0.01f)).build())
          .optDevices(new Device[] {Device.cpu()})
          .addTrainingListeners(TrainingListener.Defaults.basic())
          /* DJL calls listeners in order: the stand-in all-reduce runs after backward, before the
             NCCL listener takes the batch's figures and moves the step tag on. */
          .addTrainingListeners(new RecordedAllReduce(player), nccl, new EpochPrinter(nccl, out));

      try (Trainer trainer = model.newTrainer(trainingConfig)) {
        trainer.setMetrics(new Metrics());
        trainer.initialize(new Shape(BATCH, FEATURES));
        out.printf("%5s %5s %4s %-8s %4s %10s %10s  %s%n", "epoch", "batch", "step", "kind", "ops", "bytes",
            "comm ms", "bus bandwidth by operation (GB/s)");
        EasyTrain.fit(trainer, EPOCHS, train, validate);

        int rest = player.playOperations(Integer.MAX_VALUE);
        out.printf("%nAfter training: played the remaining %d operations of the trace.%n", rest);
        player.close();
        /* Closing the inspector delivers every record still on its way, to the listener too
           (it is still attached: the trainer is not closed yet). */
        inspector.close();
        printSummary(out, nccl, trainer, inspector, byStep);
      }
    } finally {
      player.close();
    }
  }

  /** Points whose label is a fixed linear function of the features plus a little noise. */
  private static ArrayDataset dataset(NDManager manager, int samples) {
    NDArray x = manager.randomNormal(new Shape(samples, FEATURES));
    NDArray weights = manager.arange(1f, FEATURES + 1f).div(FEATURES).reshape(FEATURES, 1);
    NDArray y = x.matMul(weights).add(manager.randomNormal(0f, 0.05f, new Shape(samples, 1), x.getDataType()));
    return new ArrayDataset.Builder().setData(x).optLabels(y).setSampling(BATCH, true).build();
  }

  /** The stand-in for NCCL: plays the batch's share of the recorded trace. */
  private static final class RecordedAllReduce extends TrainingListenerAdapter {
    private final TracePlayer player;

    RecordedAllReduce(TracePlayer player) {
      this.player = player;
    }

    @Override
    public void onTrainingBatch(Trainer trainer, BatchData batchData) {
      player.playOperations(OPERATIONS_PER_BATCH);
    }

    @Override
    public void onValidationBatch(Trainer trainer, BatchData batchData) {
      player.playOperations(OPERATIONS_PER_VALIDATION);
    }
  }

  /** Counts records by their step tag, for exact attribution after the fact. */
  private static final class StepTally implements InspectorListener {
    private final Map<Long, LongAdder> operations = new ConcurrentSkipListMap<>();

    @Override
    public void operationCompleted(OperationRecord record) {
      operations.computeIfAbsent(record.tags().step(), k -> new LongAdder()).increment();
    }

    String summary() {
      return operations.entrySet().stream().map(e -> (e.getKey() < 0 ? "untagged" : e.getKey()) + ":" + e.getValue())
          .collect(Collectors.joining(" "));
    }
  }

  /** Prints each finished epoch's communication and losses. */
  private static final class EpochPrinter extends TrainingListenerAdapter {
    private final NcclTrainingListener nccl;
    private final PrintStream out;

    EpochPrinter(NcclTrainingListener nccl, PrintStream out) {
      this.nccl = nccl;
      this.out = out;
    }

    @Override
    public void onEpoch(Trainer trainer) {
      EpochCommunication e = nccl.lastEpoch().orElseThrow();
      TrainingResult result = trainer.getTrainingResult();
      CommunicationFigures f = e.figures();
      out.printf(Locale.ROOT, "-- epoch %d: %d operations, %s, %.3f ms in collectives over %d+%d batches;"
              + " train loss %.4f, validation loss %.4f%n",
          e.epoch(), f.operations(), bytes(f.bytes()), f.executionMillis(), e.trainingBatches(),
          e.validationBatches(), result.getTrainLoss(), result.getValidateLoss());
    }
  }

  private static void printBatch(PrintStream out, BatchCommunication b) {
    CommunicationFigures f = b.figures();
    String bandwidths = f.byOperation().values().stream()
        .filter(o -> o.executionNanos() > 0)
        .map(o -> String.format(Locale.ROOT, "%s %.2f", o.operation(), o.busBandwidthGbs()))
        .collect(Collectors.joining(", "));
    out.printf(Locale.ROOT, "%5d %5d %4d %-8s %4d %10s %10.3f  %s%n", b.epoch(), b.batchInEpoch(), b.step(),
        b.kind().name().toLowerCase(Locale.ROOT), f.operations(), bytes(f.bytes()), f.executionMillis(),
        bandwidths);
  }

  private static void printSummary(PrintStream out, NcclTrainingListener nccl, Trainer trainer,
      NcclInspector inspector, StepTally byStep) {
    CommunicationFigures total = nccl.totals();
    out.println();
    out.printf(Locale.ROOT, "Summary: %d epochs, %d training and %d validation batches%n", nccl.epoch(),
        nccl.trainingBatches(), nccl.validationBatches());
    out.printf(Locale.ROOT, "  %-14s %6s %12s %12s %12s%n", "operation", "count", "bytes", "time ms", "busbw GB/s");
    for (OperationFigures o : total.byOperation().values()) {
      out.printf(Locale.ROOT, "  %-14s %6d %12s %12.3f %12.3f%n", o.operation(), o.operations(), bytes(o.bytes()),
          o.executionMillis(), o.busBandwidthGbs());
    }
    out.printf(Locale.ROOT, "  %-14s %6d %12s %12.3f%n", "all", total.operations(), bytes(total.bytes()),
        total.executionMillis());
    out.printf("  slow collectives: %d, suspected hangs: %d (each logged at WARN)%n", nccl.slowCollectives(),
        nccl.suspectedHangs());
    Metrics metrics = trainer.getMetrics();
    MetricNames names = nccl.metricNames();
    String time = names.communicationTime(BatchKind.TRAIN);
    out.printf(Locale.ROOT, "  trainer.getMetrics(): %s mean %.3f ms, p90 %.3f ms over %d batches; %s mean %.2f GB/s%n",
        time, metrics.mean(time), metrics.percentile(time, 90).getValue(), metrics.getMetric(time).size(),
        names.busBandwidth(BatchKind.TRAIN, "AllReduce"),
        metrics.hasMetric(names.busBandwidth(BatchKind.TRAIN, "AllReduce"))
            ? metrics.mean(names.busBandwidth(BatchKind.TRAIN, "AllReduce")) : 0.0);
    out.println("  JSON Lines output: " + inspector.status().output().map(o -> o.file()).map(Path::toString).orElse("off"));
    out.println();
    out.println("Batch figures count what completed between two batch callbacks. In this trace (three ranks");
    out.println("queueing on one GPU) kernels finish up to a few batches after they were enqueued, so some");
    out.println("batches show nothing. Every record also carries its step tag (the global batch index at");
    out.println("enqueue), which attributes it exactly; operations by step tag:");
    out.println("  " + byStep.summary());
  }

  private static String bytes(long n) {
    if (n >= 1 << 30) {
      return String.format(Locale.ROOT, "%.1f GiB", n / (double) (1 << 30));
    }
    if (n >= 1 << 20) {
      return String.format(Locale.ROOT, "%.1f MiB", n / (double) (1 << 20));
    }
    if (n >= 1 << 10) {
      return String.format(Locale.ROOT, "%.1f KiB", n / (double) (1 << 10));
    }
    return n + " B";
  }

  private static Path traceFile(String[] args) {
    if (args.length > 0) {
      Path p = Path.of(args[0]);
      return Files.isRegularFile(p) ? p : null;
    }
    for (Path p : new Path[] {Path.of("examples", "traces", BUNDLED_TRACE), Path.of("traces", BUNDLED_TRACE)}) {
      if (Files.isRegularFile(p)) {
        return p;
      }
    }
    return null;
  }
}
