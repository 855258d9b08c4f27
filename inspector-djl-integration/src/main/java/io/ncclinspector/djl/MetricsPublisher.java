package io.ncclinspector.djl;

import ai.djl.metric.Dimension;
import ai.djl.metric.Metric;
import ai.djl.metric.MetricType;
import ai.djl.metric.Metrics;
import ai.djl.metric.Unit;

/**
 * Writes a batch's figures into DJL {@link Metrics}: one gauge per name and batch, with the epoch
 * and phase as dimensions (and the operation for bandwidths). Time, bytes and operation count are
 * written for every batch, zero included, so their lists line up with the batches; a bandwidth only
 * for operations timed in the batch.
 */
final class MetricsPublisher {
  private final MetricNames names;

  MetricsPublisher(MetricNames names) {
    this.names = names;
  }

  void publish(Metrics metrics, BatchCommunication batch, String phase) {
    BatchKind kind = batch.kind();
    CommunicationFigures f = batch.figures();
    Dimension epoch = new Dimension("epoch", Integer.toString(batch.epoch()));
    Dimension phaseDimension = new Dimension("phase", phase);
    metrics.addMetric(gauge(names.communicationTime(kind), f.executionMillis(), Unit.MILLISECONDS,
        epoch, phaseDimension));
    metrics.addMetric(gauge(names.communicationBytes(kind), f.bytes(), Unit.BYTES, epoch, phaseDimension));
    metrics.addMetric(gauge(names.operations(kind), f.operations(), Unit.COUNT, epoch, phaseDimension));
    for (OperationFigures op : f.byOperation().values()) {
      if (op.executionNanos() > 0) {
        metrics.addMetric(gauge(names.busBandwidth(kind, op.operation()), op.busBandwidthGbs(),
            Unit.GIGABYTES_PER_SECOND, epoch, phaseDimension, new Dimension("operation", op.operation())));
      }
    }
  }

  private static Metric gauge(String name, Number value, Unit unit, Dimension... dimensions) {
    return new Metric(name, MetricType.GAUGE, value, unit, dimensions);
  }
}
