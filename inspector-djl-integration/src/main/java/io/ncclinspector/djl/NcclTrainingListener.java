package io.ncclinspector.djl;

import ai.djl.metric.Metrics;
import ai.djl.training.Trainer;
import ai.djl.training.listener.TrainingListener;
import io.ncclinspector.CommunicatorSelector;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.NcclInspector;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A DJL {@link TrainingListener} that observes the NCCL collectives of a training through the NCCL
 * Inspector.
 *
 * <pre>{@code
 * NcclTrainingListener nccl = NcclTrainingListener.builder().build();
 * TrainingConfig config = new DefaultTrainingConfig(Loss.l2Loss()).addTrainingListeners(nccl);
 * try (Trainer trainer = model.newTrainer(config)) {
 *   trainer.setMetrics(new Metrics());
 *   EasyTrain.fit(trainer, epochs, train, validate);
 *   double commMs = trainer.getMetrics().mean(nccl.metricNames().communicationTime(BatchKind.TRAIN));
 * }
 * }</pre>
 *
 * <p><b>Lifecycle.</b> At {@code onTrainingBegin} (DJL calls it from the {@code Trainer}
 * constructor) the listener shares the inspector already enabled in the process
 * ({@link NcclInspector#current()}) or enables one from its configuration (by default
 * {@link InspectorConfig#fromEnvironment()}) and then owns it. At {@code onTrainingEnd}
 * ({@code Trainer.close()}) it removes its registration, clears the training thread's tags and
 * closes the inspector only if it enabled it; {@link #close()} does the same and may be called again
 * harmlessly. If the inspector cannot be started, training goes on with a warning and empty figures.
 *
 * <p><b>Tags.</b> DJL tells a listener about a batch only when it is over, so a tag applies to
 * what the training thread enqueues after the callback that set it: the step tag is the global
 * index of the training batch in progress (0 from the start of training, {@code n + 1} after the
 * callback of batch {@code n}) and the phase is {@code "train"}, or {@code "validate"} after a
 * validation batch callback (until the next training batch or epoch). In {@code EasyTrain.fit},
 * {@code trainer.step()} runs after a batch's callback, so collectives issued by the parameter
 * update of batch {@code n} carry tag {@code n + 1}; collectives issued during the forward and
 * backward passes carry their own batch's tag. Epochs are not a tag; {@link #epochOfStep(long)}
 * maps a record's step back to its epoch.
 *
 * <p><b>Figures.</b> At each batch callback the listener takes the figures of the records that
 * completed since the previous callback ({@link BatchCommunication}, which explains the
 * asynchronous lag), adds them to {@link Trainer#getMetrics()} when the trainer has metrics (names
 * in {@link MetricNames}) and hands them to the {@link Builder#onBatch batch consumer}.
 *
 * <p><b>Threads.</b> The callbacks must come from the training thread (DJL calls them there).
 * Getters may be called from any thread.
 */
public final class NcclTrainingListener implements TrainingListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NcclTrainingListener.class);

  private final Supplier<InspectorConfig> inspectorConfig;
  private final CommunicatorSelector communicators;
  private final MetricNames metricNames;
  private final MetricsPublisher publisher;
  private final String trainPhase;
  private final String validatePhase;
  private final Consumer<BatchCommunication> onBatch;
  private final EpochIndex epochs = new EpochIndex();

  /* Training state: written on the training thread under this object's monitor. */
  private InspectorSession session;
  private volatile CommunicationLedger ledger = new CommunicationLedger();
  private volatile TrainingEventListener events = new TrainingEventListener(ledger, epochs);
  private volatile int epoch;
  private long epochFirstStep;
  private long trainingBatchesInEpoch;
  private long validationBatchesInEpoch;
  private volatile long trainingBatches;
  private volatile long validationBatches;
  private volatile BatchCommunication lastTrainingBatch;
  private volatile BatchCommunication lastValidationBatch;
  private volatile EpochCommunication lastEpoch;

  private NcclTrainingListener(Builder b) {
    this.inspectorConfig = b.inspectorConfig;
    this.communicators = b.communicators;
    this.metricNames = new MetricNames(b.metricPrefix);
    this.publisher = b.publishMetrics ? new MetricsPublisher(metricNames) : null;
    this.trainPhase = b.trainPhase;
    this.validatePhase = b.validatePhase;
    this.onBatch = b.onBatch;
  }

  /** A builder with the defaults (see {@link Builder}). */
  public static Builder builder() {
    return new Builder();
  }

  // ---- DJL callbacks ----

  /**
   * Shares or enables the inspector, registers with it and tags the calling (training) thread with
   * step 0 and the training phase.
   *
   * @throws IllegalStateException if this listener is already attached to a training in progress
   */
  @Override
  public synchronized void onTrainingBegin(Trainer trainer) {
    if (session != null) {
      throw new IllegalStateException("this NcclTrainingListener is already attached to a training in progress");
    }
    ledger = new CommunicationLedger();
    events = new TrainingEventListener(ledger, epochs);
    epochs.reset();
    epoch = 0;
    epochFirstStep = 0;
    trainingBatchesInEpoch = 0;
    validationBatchesInEpoch = 0;
    trainingBatches = 0;
    validationBatches = 0;
    lastTrainingBatch = null;
    lastValidationBatch = null;
    lastEpoch = null;
    session = InspectorSession.open(inspectorConfig, communicators, events);
    session.tags().set(0, trainPhase);
    log.info("NCCL Inspector attached to DJL training ({} inspector{})",
        session.owned() ? "own" : "shared", session.inspector().isActive() ? "" : ", inactive");
  }

  /** Reports the batch that just ended and tags what follows with the next batch's index. */
  @Override
  public void onTrainingBatch(Trainer trainer, BatchData batchData) {
    BatchCommunication batch;
    synchronized (this) {
      if (session == null) {
        return;
      }
      batch = new BatchCommunication(BatchKind.TRAIN, epoch, trainingBatchesInEpoch, trainingBatches,
          ledger.takeWindow());
      trainingBatchesInEpoch++;
      trainingBatches++;
      lastTrainingBatch = batch;
      session.tags().set(trainingBatches, trainPhase);
    }
    report(trainer, batch, trainPhase);
  }

  /** Reports the validation batch that just ended and tags what follows with the validation phase. */
  @Override
  public void onValidationBatch(Trainer trainer, BatchData batchData) {
    BatchCommunication batch;
    synchronized (this) {
      if (session == null) {
        return;
      }
      batch = new BatchCommunication(BatchKind.VALIDATE, epoch, validationBatchesInEpoch, trainingBatches,
          ledger.takeWindow());
      validationBatchesInEpoch++;
      validationBatches++;
      lastValidationBatch = batch;
      session.tags().set(trainingBatches, validatePhase);
    }
    report(trainer, batch, validatePhase);
  }

  /** Closes the epoch's figures ({@link #lastEpoch()}, logged at INFO) and starts the next epoch. */
  @Override
  public synchronized void onEpoch(Trainer trainer) {
    if (session == null) {
      return;
    }
    EpochCommunication finished = new EpochCommunication(epoch, epochFirstStep, trainingBatchesInEpoch,
        validationBatchesInEpoch, ledger.takeEpoch());
    lastEpoch = finished;
    CommunicationFigures f = finished.figures();
    log.info("NCCL epoch {}: {} operations, {} bytes, {} ms in collectives over {} training and {} validation batches",
        finished.epoch(), f.operations(), f.bytes(), String.format("%.3f", f.executionMillis()),
        finished.trainingBatches(), finished.validationBatches());
    epoch++;
    epochFirstStep = trainingBatches;
    trainingBatchesInEpoch = 0;
    validationBatchesInEpoch = 0;
    epochs.startEpoch(epochFirstStep);
    session.tags().set(trainingBatches, trainPhase);
  }

  /** Detaches from the inspector: see {@link #close()}. */
  @Override
  public void onTrainingEnd(Trainer trainer) {
    close();
  }

  /**
   * Clears the calling thread's tags, removes the inspector registration and closes the inspector
   * if this listener enabled it (which first delivers every completed record, so {@link #totals()}
   * is then complete); a shared inspector stays open. Does nothing if not attached.
   */
  @Override
  public void close() {
    InspectorSession ending;
    synchronized (this) {
      ending = session;
      session = null;
    }
    if (ending == null) {
      return;
    }
    ending.close();
    CommunicationFigures t = totals();
    log.info("NCCL Inspector detached from DJL training: {} training batches, {} operations, {} bytes, {} ms in"
            + " collectives, {} slow collectives, {} suspected hangs",
        trainingBatches, t.operations(), t.bytes(), String.format("%.3f", t.executionMillis()),
        slowCollectives(), suspectedHangs());
  }

  private void report(Trainer trainer, BatchCommunication batch, String phase) {
    Metrics metrics = trainer == null ? null : trainer.getMetrics();
    if (publisher != null && metrics != null) {
      publisher.publish(metrics, batch, phase);
    }
    if (onBatch != null) {
      onBatch.accept(batch);
    }
  }

  // ---- what it saw ----

  /** The names of the metrics added to the trainer's {@link Metrics}. */
  public MetricNames metricNames() {
    return metricNames;
  }

  /** The last training batch reported, if any (of the current or last training). */
  public Optional<BatchCommunication> lastTrainingBatch() {
    return Optional.ofNullable(lastTrainingBatch);
  }

  /** The last validation batch reported, if any. */
  public Optional<BatchCommunication> lastValidationBatch() {
    return Optional.ofNullable(lastValidationBatch);
  }

  /** The last finished epoch, if any. */
  public Optional<EpochCommunication> lastEpoch() {
    return Optional.ofNullable(lastEpoch);
  }

  /**
   * Every operation received since the training began, reported in a batch or not yet (those that
   * completed after the last callback are here too).
   */
  public CommunicationFigures totals() {
    return ledger.total();
  }

  /** Training batches reported so far: also the step tag of the batch in progress. */
  public long trainingBatches() {
    return trainingBatches;
  }

  /** Validation batches reported so far. */
  public long validationBatches() {
    return validationBatches;
  }

  /** The epoch in progress (epochs finished so far), from 0. */
  public int epoch() {
    return epoch;
  }

  /**
   * The epoch of a step tag this listener gave ({@link io.ncclinspector.Tags#step()} of a record):
   * for exact attribution of records after the fact. -1 for an untagged record (step -1).
   */
  public int epochOfStep(long step) {
    return epochs.epochOf(step);
  }

  /** Slow collectives reported by the inspector during the training (each logged at WARN). */
  public long slowCollectives() {
    return events.slowCollectives();
  }

  /** Operations the inspector suspected of hanging during the training (each logged at WARN). */
  public long suspectedHangs() {
    return events.suspectedHangs();
  }

  /** Events lost because this listener's queue in the inspector was full (0 when not attached). */
  public synchronized long droppedEvents() {
    return session == null ? 0 : session.droppedEvents();
  }

  /** The inspector in use, while attached to a training. */
  public synchronized Optional<NcclInspector> inspector() {
    return session == null ? Optional.empty() : Optional.of(session.inspector());
  }

  /** Whether the listener enabled the inspector it uses (and will close it), while attached. */
  public synchronized boolean ownsInspector() {
    return session != null && session.owned();
  }

  /** Whether the listener is attached to a training. */
  public synchronized boolean isAttached() {
    return session != null;
  }

  /**
   * Configures a {@link NcclTrainingListener}. Defaults: the inspector configuration of the
   * environment (used only when no inspector is enabled yet), every communicator, metric prefix
   * {@code nccl_}, metrics on, phases {@code "train"} and {@code "validate"}, no batch consumer.
   */
  public static final class Builder {
    private Supplier<InspectorConfig> inspectorConfig = InspectorConfig::fromEnvironment;
    private CommunicatorSelector communicators = CommunicatorSelector.all();
    private String metricPrefix = MetricNames.DEFAULT_PREFIX;
    private boolean publishMetrics = true;
    private String trainPhase = "train";
    private String validatePhase = "validate";
    private Consumer<BatchCommunication> onBatch;

    private Builder() {}

    /** The configuration to enable an inspector with, when none is enabled at training begin. */
    public Builder inspectorConfig(InspectorConfig config) {
      Objects.requireNonNull(config, "config");
      this.inspectorConfig = () -> config;
      return this;
    }

    /** Which communicators to count (all by default); tags apply to every collective regardless. */
    public Builder communicators(CommunicatorSelector selector) {
      this.communicators = Objects.requireNonNull(selector, "selector");
      return this;
    }

    /** What metric names start with ({@code nccl_}). */
    public Builder metricPrefix(String prefix) {
      this.metricPrefix = Objects.requireNonNull(prefix, "prefix");
      return this;
    }

    /** Whether to add figures to the trainer's metrics (on by default). */
    public Builder publishMetrics(boolean publish) {
      this.publishMetrics = publish;
      return this;
    }

    /** The phase tags of training and validation ({@code "train"}, {@code "validate"}). */
    public Builder phases(String train, String validate) {
      this.trainPhase = Objects.requireNonNull(train, "train");
      this.validatePhase = Objects.requireNonNull(validate, "validate");
      if (train.equals(validate)) {
        throw new IllegalArgumentException("training and validation phases must differ: " + train);
      }
      return this;
    }

    /** Called on the training thread with each batch's figures, after they went into the metrics. */
    public Builder onBatch(Consumer<BatchCommunication> consumer) {
      this.onBatch = Objects.requireNonNull(consumer, "consumer");
      return this;
    }

    public NcclTrainingListener build() {
      return new NcclTrainingListener(this);
    }
  }
}
