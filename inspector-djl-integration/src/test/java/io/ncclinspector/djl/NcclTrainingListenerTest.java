package io.ncclinspector.djl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Model;
import ai.djl.metric.Metric;
import ai.djl.metric.Metrics;
import ai.djl.metric.Unit;
import ai.djl.ndarray.NDManager;
import ai.djl.training.EasyTrain;
import ai.djl.training.Trainer;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.dataset.Batch;
import ai.djl.training.listener.TrainingListenerAdapter;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.SlowCollectiveDetection;
import io.ncclinspector.replay.TracePlayer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import io.ncclinspector.testsupport.LogCapture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real DJL training on the PyTorch CPU engine, with the bundled NCCL trace played between batches
 * as the stand-in for the gradient all-reduce.
 */
class NcclTrainingListenerTest {
  private static final double EPS = 1e-9;

  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();

  /**
   * What these trainings may log depending on timing (replayed collectives are timed by the
   * machine running the test) and on the machine (DJL's GPU probe warns where a CUDA runtime but
   * no usable GPU is installed): captured, never printed.
   */
  @BeforeEach
  void allowTimingDependentWarnings() {
    logs.allow("WARN", "NCCL slow ").allow("WARN", "NCCL operation suspected hung")
        .allow("WARN", "in flight for").allow("WARN", "Failed to detect GPU count")
        .allow("WARN", "No GPU device found");
  }

  @AfterEach
  void closeWhateverIsOpen() {
    NcclInspector.current().ifPresent(NcclInspector::close);
  }

  @Test
  void batchMetricsAreWhatAnIndependentListenerReceivedInEachWindow() throws Exception {
    int batches = 8;
    int operationsPerBatch = 10;
    List<BatchCommunication> reported = new CopyOnWriteArrayList<>();
    NcclTrainingListener nccl = NcclTrainingListener.builder().onBatch(reported::add).build();
    RecordLog log = new RecordLog();
    try (NcclInspector inspector = NcclInspector.enable(TraceSchedule.config(dir).build());
        Model model = TinyTraining.model();
        NDManager data = NDManager.newBaseManager()) {
      inspector.addListener(log);
      ArrayDataset dataset = TinyTraining.dataset(data, batches * TinyTraining.BATCH);
      try (TracePlayer player = TracePlayer.open(inspector, TraceSchedule.trace())) {
        Trainer trainer = TinyTraining.trainer(model, nccl);
        trainer.setMetrics(new Metrics());
        assertFalse(nccl.ownsInspector(), "an inspector was already enabled: shared");
        assertSame(inspector, nccl.inspector().orElseThrow());

        int played = 0;
        for (Batch batch : trainer.iterateDataset(dataset)) {
          try (batch) {
            played += player.playOperations(operationsPerBatch); /* the batch's all-reduce */
            if (played == batches * operationsPerBatch) {
              /* Before the last callback, let the listener receive what the trace has surely completed
                 by now (operations finish later than they start, but not 20 operations later). */
              int completed = played - 20;
              RecordLog.await(() -> nccl.totals().operations() >= completed, () -> completed + " records");
            }
            EasyTrain.trainBatch(trainer, batch);
            trainer.step();
          }
        }
        assertEquals(batches * operationsPerBatch, played);
        assertEquals(batches, nccl.trainingBatches());
        assertEquals(batches, reported.size());
        Metrics metrics = trainer.getMetrics();
        MetricNames names = nccl.metricNames();
        List<Metric> time = metrics.getMetric(names.communicationTime(BatchKind.TRAIN));
        List<Metric> bytes = metrics.getMetric(names.communicationBytes(BatchKind.TRAIN));
        List<Metric> operations = metrics.getMetric(names.operations(BatchKind.TRAIN));
        assertEquals(batches, time.size());
        assertEquals(batches, bytes.size());
        assertEquals(batches, operations.size());
        assertEquals(Unit.MILLISECONDS, time.get(0).getUnit());

        /* Both listeners get the records in the same order: slice the independent one's by the
           operation counts the metrics give, and each slice must add up to that batch's metrics. */
        long reportedOperations = operations.stream().mapToLong(m -> m.getValue().longValue()).sum();
        assertTrue(reportedOperations >= played - 20, "records arrived during training: " + reportedOperations);
        RecordLog.await(() -> log.size() >= reportedOperations, () -> reportedOperations + " records");
        List<OperationRecord> seen = log.records();
        Map<String, List<Double>> busbwByOperation = new TreeMap<>();
        int from = 0;
        for (int b = 0; b < batches; b++) {
          int n = operations.get(b).getValue().intValue();
          List<OperationRecord> slice = seen.subList(from, from + n);
          from += n;
          BatchCommunication batch = reported.get(b);
          assertEquals(b, batch.step());
          assertEquals(b, batch.batchInEpoch());
          assertEquals(0, batch.epoch());
          assertEquals(BatchKind.TRAIN, batch.kind());
          assertEquals(n, batch.figures().operations());
          long nanos = slice.stream().mapToLong(r -> r.timing().executionNanos()).sum();
          long sliceBytes = slice.stream().mapToLong(r -> r.transfer().messageBytes()).sum();
          assertEquals(nanos / 1e6, time.get(b).getValue(), EPS, "time of batch " + b);
          assertEquals(sliceBytes, bytes.get(b).getValue().longValue(), "bytes of batch " + b);
          assertEquals(nanos, batch.figures().executionNanos());
          assertEquals(sliceBytes, batch.figures().bytes());
          for (OperationRecord r : slice) {
            assertTrue(r.tags().step() <= b, "a record reported at batch " + b + " was enqueued by then: " + r);
          }
          Map<String, Double> expectedBusbw = aggregateBusBandwidth(slice);
          assertEquals(slice.stream().map(OperationRecord::operation).collect(Collectors.toSet()),
              batch.figures().byOperation().keySet());
          expectedBusbw.forEach((operation, gbs) -> {
            assertEquals(gbs, batch.figures().busBandwidthGbs(operation).orElseThrow(), EPS);
            busbwByOperation.computeIfAbsent(operation, k -> new ArrayList<>()).add(gbs);
          });
        }
        busbwByOperation.forEach((operation, values) -> {
          List<Metric> m = metrics.getMetric(names.busBandwidth(BatchKind.TRAIN, operation));
          assertEquals(values.size(), m.size(), operation);
          for (int i = 0; i < values.size(); i++) {
            assertEquals(values.get(i), m.get(i).getValue(), EPS, operation + " bandwidth #" + i);
            assertEquals(Unit.GIGABYTES_PER_SECOND, m.get(i).getUnit());
          }
        });
        assertTrue(busbwByOperation.containsKey("AllReduce"));
        assertSame(reported.get(batches - 1), nccl.lastTrainingBatch().orElseThrow());

        /* Training ends: the shared inspector stays open, the listener no longer receives. */
        trainer.close();
        nccl.close(); /* again: harmless */
        assertFalse(nccl.isAttached());
        assertTrue(inspector.isActive());
        assertSame(inspector, NcclInspector.current().orElseThrow());
        long received = nccl.totals().operations();
        assertTrue(received >= reportedOperations);
        player.playAll();
        RecordLog.await(() -> log.size() == TraceSchedule.OPERATIONS, () -> "every record of the trace");
        assertEquals(received, nccl.totals().operations(), "nothing delivered after training ended");
      }
    }
  }

  @Test
  void recordsCarryTheBatchIndexAsStepTagAndTheOwnedInspectorIsClosed() throws Exception {
    int batches = 6;
    int operationsPerBatch = 12;
    TraceSchedule schedule = new TraceSchedule();
    for (int b = 0; b < batches; b++) {
      schedule.add(b, "train", operationsPerBatch);
    }
    Map<String, String> expected = schedule.referenceTags(dir.resolve("reference"));

    NcclTrainingListener nccl = NcclTrainingListener.builder()
        .inspectorConfig(TraceSchedule.config(dir.resolve("djl")).build()).build();
    RecordLog log = new RecordLog();
    assertTrue(NcclInspector.current().isEmpty());
    try (Model model = TinyTraining.model(); NDManager data = NDManager.newBaseManager()) {
      ArrayDataset dataset = TinyTraining.dataset(data, batches * TinyTraining.BATCH);
      Trainer trainer = TinyTraining.trainer(model, nccl);
      NcclInspector inspector = NcclInspector.current().orElseThrow();
      assertTrue(nccl.ownsInspector(), "none was enabled: the listener enabled its own");
      inspector.addListener(log);
      try (TracePlayer player = TracePlayer.open(inspector, TraceSchedule.trace())) {
        for (Batch batch : trainer.iterateDataset(dataset)) {
          try (batch) {
            player.playOperations(operationsPerBatch);
            EasyTrain.trainBatch(trainer, batch);
            trainer.step();
          }
        }
      }
      trainer.close(); /* closes the inspector the listener enabled, which delivers every record */
      assertFalse(inspector.isActive());
      assertTrue(NcclInspector.current().isEmpty());
    }
    nccl.close();

    Map<String, String> actual = log.tags();
    assertEquals(batches * operationsPerBatch, actual.size());
    assertEquals(expected, actual);
    for (int b = 0; b < batches; b++) {
      String tag = b + "/train";
      assertTrue(actual.containsValue(tag), "some record tagged " + tag);
    }
    assertEquals(batches * operationsPerBatch, nccl.totals().operations(), "the owned inspector delivered all");
  }

  @Test
  void fitTagsValidationBatchesAndTracksEpochs() throws Exception {
    int epochs = 2;
    int trainBatches = 4;
    int validationBatches = 2;
    int trainOperations = 6;
    int validationOperations = 2;
    /* The simulated communication runs in a listener placed after ours: it sees our tags. */
    TraceSchedule schedule = new TraceSchedule();
    for (int e = 0; e < epochs; e++) {
      for (int b = 0; b < trainBatches; b++) {
        schedule.add(e * trainBatches + b + 1L, "train", trainOperations);
      }
      for (int v = 0; v < validationBatches; v++) {
        schedule.add((e + 1L) * trainBatches, "validate", validationOperations);
      }
    }
    Map<String, String> expected = schedule.referenceTags(dir.resolve("reference"));

    RecordLog log = new RecordLog();
    NcclTrainingListener nccl = NcclTrainingListener.builder().build();
    try (NcclInspector inspector = NcclInspector.enable(TraceSchedule.config(dir.resolve("djl")).build());
        Model model = TinyTraining.model();
        NDManager data = NDManager.newBaseManager()) {
      inspector.addListener(log);
      TracePlayer player = TracePlayer.open(inspector, TraceSchedule.trace());
      ArrayDataset train = TinyTraining.dataset(data, trainBatches * TinyTraining.BATCH);
      ArrayDataset validate = TinyTraining.dataset(data, validationBatches * TinyTraining.BATCH);
      TrainingListenerAdapter allReduce = new TrainingListenerAdapter() {
        @Override
        public void onTrainingBatch(Trainer trainer, BatchData batchData) {
          player.playOperations(trainOperations);
        }

        @Override
        public void onValidationBatch(Trainer trainer, BatchData batchData) {
          player.playOperations(validationOperations);
        }
      };
      try (Trainer trainer = TinyTraining.trainer(model, nccl, allReduce)) {
        trainer.setMetrics(new Metrics());
        EasyTrain.fit(trainer, epochs, train, validate);

        assertEquals(epochs, nccl.epoch());
        assertEquals(epochs * trainBatches, nccl.trainingBatches());
        assertEquals(epochs * validationBatches, nccl.validationBatches());
        EpochCommunication last = nccl.lastEpoch().orElseThrow();
        assertEquals(epochs - 1, last.epoch());
        assertEquals(trainBatches, last.firstStep());
        assertEquals(trainBatches, last.trainingBatches());
        assertEquals(validationBatches, last.validationBatches());
        BatchCommunication lastValidation = nccl.lastValidationBatch().orElseThrow();
        assertEquals(BatchKind.VALIDATE, lastValidation.kind());
        assertEquals(epochs * trainBatches, lastValidation.step());
        assertEquals(validationBatches - 1, lastValidation.batchInEpoch());
        for (int step = 0; step < epochs * trainBatches; step++) {
          assertEquals(step / trainBatches, nccl.epochOfStep(step), "epoch of step " + step);
        }
        assertEquals(epochs, nccl.epochOfStep(epochs * trainBatches), "after the last epoch");

        Metrics metrics = trainer.getMetrics();
        MetricNames names = nccl.metricNames();
        assertEquals(epochs * trainBatches, metrics.getMetric(names.operations(BatchKind.TRAIN)).size());
        List<Metric> validationTime = metrics.getMetric(names.communicationTime(BatchKind.VALIDATE));
        assertEquals(epochs * validationBatches, validationTime.size());
        assertEquals("1", dimension(validationTime.get(validationTime.size() - 1), "epoch"));
        assertEquals("validate", dimension(validationTime.get(0), "phase"));
      } finally {
        player.close();
      }
      inspector.close(); /* delivers every record, the unfinished ones included */
    }
    Map<String, String> actual = log.tags();
    assertEquals(epochs * (trainBatches * trainOperations + validationBatches * validationOperations), actual.size());
    assertEquals(expected, actual);
    assertTrue(actual.values().stream().anyMatch(t -> t.endsWith("/validate")));
  }

  @Test
  void countsAndLogsSlowCollectivesAndSuspectedHangs() throws Exception {
    logs.expect("WARN", "NCCL slow ").expect("WARN", "NCCL operation suspected hung");
    InspectorConfig config = TraceSchedule.config(dir)
        /* The recorded kernel times of the trace's first small AllReduces alternate between about 5, 7
           and 13.5 ms: a 10 ms threshold makes a third of them "slow"; 50 ms in flight is a "hang". */
        .slowCollectives(SlowCollectiveDetection.defaults().withAbsoluteThreshold(Duration.ofMillis(10)))
        .hangTimeout(Duration.ofMillis(50))
        .build();
    NcclTrainingListener nccl = NcclTrainingListener.builder().inspectorConfig(config).build();
    RecordLog log = new RecordLog();
    try (Model model = TinyTraining.model(); NDManager data = NDManager.newBaseManager()) {
      ArrayDataset dataset = TinyTraining.dataset(data, 4 * TinyTraining.BATCH);
      Trainer trainer = TinyTraining.trainer(model, nccl);
      NcclInspector inspector = NcclInspector.current().orElseThrow();
      inspector.addListener(log);
      try (TracePlayer player = TracePlayer.open(inspector, TraceSchedule.trace())) {
        for (Batch batch : trainer.iterateDataset(dataset)) {
          try (batch) {
            player.playOperations(10);
            EasyTrain.trainBatch(trainer, batch);
            trainer.step();
          }
        }
        /* The last operations played are still in flight (their kernels end later in the trace). */
        RecordLog.await(() -> nccl.suspectedHangs() > 0, () -> "a suspected hang");
        RecordLog.await(() -> nccl.slowCollectives() > 0, () -> "a slow collective");
      }
      trainer.close(); /* closes the owned inspector: what is in flight is flushed, everything delivered */
    }
    assertTrue(NcclInspector.current().isEmpty(), "the listener closed the inspector it enabled");
    assertEquals(log.slowCollectives(), nccl.slowCollectives());
    assertEquals(log.suspectedHangs(), nccl.suspectedHangs());
    assertEquals(log.size(), nccl.totals().operations());
    assertTrue(log.size() >= 40, "every operation played was delivered: " + log.size());
    nccl.close(); /* again: harmless */
  }

  @Test
  void trainingGoesOnWithADisabledInspector() throws Exception {
    NcclTrainingListener nccl = NcclTrainingListener.builder()
        .inspectorConfig(TraceSchedule.config(dir).enabled(false).build()).build();
    try (Model model = TinyTraining.model(); NDManager data = NDManager.newBaseManager()) {
      ArrayDataset dataset = TinyTraining.dataset(data, 2 * TinyTraining.BATCH);
      try (Trainer trainer = TinyTraining.trainer(model, nccl)) {
        trainer.setMetrics(new Metrics());
        assertFalse(nccl.inspector().orElseThrow().isActive());
        for (Batch batch : trainer.iterateDataset(dataset)) {
          try (batch) {
            EasyTrain.trainBatch(trainer, batch);
            trainer.step();
          }
        }
        List<Metric> operations = trainer.getMetrics().getMetric(nccl.metricNames().operations(BatchKind.TRAIN));
        assertEquals(2, operations.size());
        assertEquals(0.0, operations.get(1).getValue());
      }
    }
    assertTrue(nccl.totals().isEmpty());
    assertFalse(nccl.isAttached());
  }

  @Test
  void aListenerServesOneTrainingAtATime() throws Exception {
    NcclTrainingListener nccl = NcclTrainingListener.builder()
        .inspectorConfig(TraceSchedule.config(dir).build()).build();
    try (Model model = TinyTraining.model(); Trainer first = TinyTraining.trainer(model, nccl)) {
      assertThrows(IllegalStateException.class, () -> model.newTrainer(
          new ai.djl.training.DefaultTrainingConfig(ai.djl.training.loss.Loss.l2Loss()).addTrainingListeners(nccl)));
      assertTrue(nccl.isAttached());
    }
    assertFalse(nccl.isAttached());
    assertTrue(NcclInspector.current().isEmpty());
  }

  /** Per operation with timed records: bus bytes (bandwidth × time) over time. */
  private static Map<String, Double> aggregateBusBandwidth(List<OperationRecord> records) {
    Map<String, double[]> sums = new TreeMap<>();
    for (OperationRecord r : records) {
      long t = r.timing().executionNanos();
      if (t > 0) {
        double[] s = sums.computeIfAbsent(r.operation(), k -> new double[2]);
        s[0] += r.transfer().busBandwidthGbs() * t;
        s[1] += t;
      }
    }
    Map<String, Double> result = new TreeMap<>();
    sums.forEach((operation, s) -> result.put(operation, s[0] / s[1]));
    return result;
  }

  private static String dimension(Metric metric, String name) {
    for (var d : metric.getDimensions()) {
      if (d.getName().equals(name)) {
        return d.getValue();
      }
    }
    throw new AssertionError(metric + " has no dimension " + name);
  }
}
