package io.ncclinspector.opentelemetry.internal;

import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.EventCounters;
import io.ncclinspector.HangEvent;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.export.ClassKey;
import io.ncclinspector.export.NetworkPeers;
import io.ncclinspector.export.OperationClasses;
import io.ncclinspector.opentelemetry.OpenTelemetryMetrics;
import io.ncclinspector.spi.ExporterContext;
import io.ncclinspector.spi.InspectorExporter;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.BatchCallback;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.MeterBuilder;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import java.util.List;
import java.util.Locale;

/**
 * Records an inspector's events through the OpenTelemetry metrics API ({@link OpenTelemetryMetrics}
 * describes the instruments). Runs on the exporter's thread; the counters read from the inspector
 * are observed in one batch callback per collection, on the SDK's thread, and so are the network
 * counters ({@link NetworkInstruments}).
 */
public final class OpenTelemetryExporter implements InspectorExporter {
  static final AttributeKey<String> COMMUNICATOR = AttributeKey.stringKey("nccl.communicator.name");
  static final AttributeKey<String> COMMUNICATOR_ID = AttributeKey.stringKey("nccl.communicator.id");
  static final AttributeKey<String> OPERATION = AttributeKey.stringKey("nccl.operation.name");
  static final AttributeKey<String> KIND = AttributeKey.stringKey("nccl.operation.kind");
  static final AttributeKey<String> ALGORITHM = AttributeKey.stringKey("nccl.algorithm");
  static final AttributeKey<String> PROTOCOL = AttributeKey.stringKey("nccl.protocol");
  static final AttributeKey<String> MESSAGE_SIZE = AttributeKey.stringKey("nccl.message_size");
  static final AttributeKey<String> REASON = AttributeKey.stringKey("nccl.inspector.reason");
  static final AttributeKey<String> SLOW_KIND = AttributeKey.stringKey("nccl.slow_collective.kind");
  static final AttributeKey<Boolean> RATE_LIMITED = AttributeKey.booleanKey("nccl.slow_collective.rate_limited");

  /** Execution time in seconds: 1-2.5-5 steps from 5 µs to 50 s (as the Prometheus textfiles). */
  static final List<Double> DURATION_BUCKETS = List.of(5e-6, 10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3,
      2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1.0, 2.5, 5.0, 10.0, 25.0, 50.0);
  /** Bus bandwidth in GB/s: coarse below 50, 50 GB/s apart where NVLink-class links run. */
  static final List<Double> BANDWIDTH_BUCKETS = List.of(0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 150.0, 200.0,
      250.0, 300.0, 350.0, 400.0, 450.0, 500.0, 600.0, 800.0, 1000.0);

  private final DoubleHistogram duration;
  private final DoubleHistogram bandwidth;
  private final LongCounter slowCollectives;
  private final LongCounter hangs;
  private final LongCounter overflow;
  private final BatchCallback observed;
  private final NetworkInstruments network;
  /* The attributes of each class; the communicator's serial tells communicators apart. */
  private final OperationClasses<Long, Attributes> attributeSets;

  /**
   * @param maxAttributeSets operation classes that get histogram points
   * @param maxPeers peers of a communicator rank with an {@code nccl.peer} value of their own
   */
  public OpenTelemetryExporter(MeterProvider meterProvider, int maxAttributeSets, int maxPeers,
      ExporterContext context) {
    this.attributeSets = OperationClasses.ordered(maxAttributeSets);
    MeterBuilder mb = meterProvider.meterBuilder(OpenTelemetryMetrics.METER_NAME);
    String version = OpenTelemetryMetrics.class.getPackage().getImplementationVersion();
    if (version != null) {
      mb.setInstrumentationVersion(version);
    }
    Meter meter = mb.build();
    duration = meter.histogramBuilder("nccl.operation.duration").setUnit("s")
        .setDescription("Execution time of NCCL operations on the GPU (longest kernel channel)")
        .setExplicitBucketBoundariesAdvice(DURATION_BUCKETS).build();
    bandwidth = meter.histogramBuilder("nccl.operation.bus_bandwidth").setUnit("GBy/s")
        .setDescription("Bus bandwidth of NCCL operations (nccl-tests convention)")
        .setExplicitBucketBoundariesAdvice(BANDWIDTH_BUCKETS).build();
    slowCollectives = meter.counterBuilder("nccl.inspector.slow_collectives").setUnit("{operation}")
        .setDescription("Collectives that ran slow against what is normal for their class, rate-limited ones included")
        .build();
    hangs = meter.counterBuilder("nccl.inspector.hangs_suspected").setUnit("{operation}")
        .setDescription("Operations in flight longer than the hang timeout").build();
    overflow = meter.counterBuilder("nccl.inspector.attribute_sets.overflow").setUnit("{operation}")
        .setDescription("Operations not in the histograms because the attribute-set limit was reached").build();
    ObservableLongMeasurement records = meter.counterBuilder("nccl.inspector.records").setUnit("{record}")
        .setDescription("Operation records the inspector received from NCCL").buildObserver();
    ObservableLongMeasurement dropped = meter.counterBuilder("nccl.inspector.dropped").setUnit("{event}")
        .setDescription("Events or records dropped, by reason").buildObserver();
    ObservableLongMeasurement quarantined = meter.counterBuilder("nccl.inspector.quarantined").setUnit("{record}")
        .setDescription("Records whose GPU timing was not trusted, by reason").buildObserver();
    observed = meter.batchCallback(() -> {
      records.record(context.status().records().received());
      EventCounters c = context.counters(); /* read once for both counters */
      c.drops().forEach((reason, n) -> dropped.record(n, Attributes.of(REASON, reason)));
      c.quarantined().forEach((reason, n) -> quarantined.record(n, Attributes.of(REASON, reason.jsonName())));
    }, records, dropped, quarantined);
    network = new NetworkInstruments(meter, maxPeers);
  }

  @Override
  public void operationCompleted(OperationRecord r) {
    record(r);
  }

  /**
   * Records one completed operation into the histograms of its class: not when its time is not trusted
   * ({@link OperationClasses#recordable}), counted as overflow when its class would be past the
   * attribute-set limit. Its network breakdown, if it has one, goes into the network counters,
   * quarantined or not (it comes from the host clock); counted as overflow past the communicator
   * limit.
   */
  public void record(OperationRecord r) {
    if (NetworkPeers.contributes(r) && !network.record(r)) {
      overflow.add(1);
    }
    if (!OperationClasses.recordable(r)) {
      return; /* counted by nccl.inspector.quarantined */
    }
    CommunicatorInfo c = r.communicator();
    Attributes attributes = attributeSets.classOf(r, c.serial(), key -> attributesOf(key, r));
    if (attributes == null) {
      overflow.add(1);
      return;
    }
    duration.record(r.timing().executionNanos() / 1e9, attributes);
    bandwidth.record(r.transfer().busBandwidthGbs(), attributes);
  }

  /** The attributes of a class, from its first record. */
  private static Attributes attributesOf(ClassKey<Long> key, OperationRecord r) {
    AttributesBuilder b = communicator(r.communicator()).toBuilder().put(OPERATION, key.operation())
        .put(KIND, r.kind().name().toLowerCase(Locale.ROOT)).put(MESSAGE_SIZE, key.messageSize());
    if (key.collective()) {
      b.put(ALGORITHM, key.algorithm()).put(PROTOCOL, key.protocol());
    }
    return b.build();
  }

  private static Attributes communicator(CommunicatorInfo c) {
    return Attributes.of(COMMUNICATOR, c.name(), COMMUNICATOR_ID, c.idHex());
  }

  @Override
  public void slowCollective(SlowCollectiveEvent e) {
    slowCollectives.add(1, communicator(e.communicator()).toBuilder().put(OPERATION, e.record().operation())
        .put(SLOW_KIND, e.kind().name().toLowerCase(Locale.ROOT)).put(RATE_LIMITED, e.rateLimited()).build());
  }

  @Override
  public void hangSuspected(HangEvent e) {
    hangs.add(1, communicator(e.communicator()).toBuilder().put(OPERATION, e.operation()).build());
  }

  /** Stops observing the inspector's counters and the network figures (the histograms keep what they recorded). */
  @Override
  public void close() {
    observed.close();
    network.close();
  }
}
