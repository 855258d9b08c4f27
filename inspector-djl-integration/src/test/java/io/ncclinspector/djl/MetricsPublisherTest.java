package io.ncclinspector.djl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.metric.Dimension;
import ai.djl.metric.Metric;
import ai.djl.metric.Metrics;
import ai.djl.metric.Unit;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class MetricsPublisherTest {
  private final MetricNames names = MetricNames.defaults();
  private final MetricsPublisher publisher = new MetricsPublisher(names);

  @Test
  void aTrainingBatchAddsTimeBytesOperationsAndBandwidthByOperation() {
    CommunicationLedger ledger = new CommunicationLedger();
    ledger.add(Records.collective("AllReduce", 4_000_000, 2_000_000, 3.0, 5));
    ledger.add(Records.send(1000, 1000, 5));
    Metrics metrics = new Metrics();
    publisher.publish(metrics, new BatchCommunication(BatchKind.TRAIN, 2, 1, 5, ledger.takeWindow()), "train");

    assertEquals(Set.of("nccl_comm_time", "nccl_comm_bytes", "nccl_comm_operations", "nccl_busbw_AllReduce",
        "nccl_busbw_Send"), metrics.getMetricNames());
    Metric time = metrics.latestMetric("nccl_comm_time");
    assertEquals(2.001, time.getValue(), 1e-12);
    assertEquals(Unit.MILLISECONDS, time.getUnit());
    assertEquals(Map.of("epoch", "2", "phase", "train"), dimensions(time));
    assertEquals(4_001_000.0, metrics.latestMetric("nccl_comm_bytes").getValue());
    assertEquals(Unit.BYTES, metrics.latestMetric("nccl_comm_bytes").getUnit());
    assertEquals(2.0, metrics.latestMetric("nccl_comm_operations").getValue());
    Metric busbw = metrics.latestMetric("nccl_busbw_AllReduce");
    assertEquals(3.0, busbw.getValue(), 1e-12);
    assertEquals(Unit.GIGABYTES_PER_SECOND, busbw.getUnit());
    assertEquals("AllReduce", dimensions(busbw).get("operation"));
  }

  @Test
  void anEmptyValidationBatchAddsZerosAndNoBandwidth() {
    Metrics metrics = new Metrics();
    publisher.publish(metrics, new BatchCommunication(BatchKind.VALIDATE, 0, 0, 4, CommunicationFigures.empty()),
        "validate");
    assertEquals(Set.of("nccl_validate_comm_time", "nccl_validate_comm_bytes", "nccl_validate_comm_operations"),
        metrics.getMetricNames());
    assertEquals(0.0, metrics.latestMetric("nccl_validate_comm_time").getValue());
    assertFalse(metrics.hasMetric("nccl_comm_time"));
  }

  @Test
  void namesFollowThePrefix() {
    MetricNames custom = new MetricNames("job7_");
    assertEquals("job7_comm_time", custom.communicationTime(BatchKind.TRAIN));
    assertEquals("job7_validate_busbw_AllGather", custom.busBandwidth(BatchKind.VALIDATE, "AllGather"));
    assertTrue(names.operations(BatchKind.TRAIN).startsWith(MetricNames.DEFAULT_PREFIX));
  }

  private static Map<String, String> dimensions(Metric m) {
    return Arrays.stream(m.getDimensions()).collect(Collectors.toMap(Dimension::getName, Dimension::getValue));
  }
}
