package io.ncclinspector.opentelemetry;

import io.ncclinspector.export.NetworkPeers;
import io.ncclinspector.opentelemetry.internal.OpenTelemetryExporter;
import io.ncclinspector.spi.ExporterContext;
import io.ncclinspector.spi.ExporterFactory;
import io.ncclinspector.spi.InspectorExporter;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.metrics.MeterProvider;
import java.util.Objects;

/**
 * OpenTelemetry metrics of an inspector, recorded through the OpenTelemetry metrics API into the
 * SDK the application configured (its readers and exporters: OTLP, Prometheus, ...):
 *
 * <pre>{@code
 * OpenTelemetry otel = ...;  // the application's SDK, or GlobalOpenTelemetry.get()
 * NcclInspector.enable(InspectorConfig.builder().fromEnvironment()
 *     .exporter(OpenTelemetryMetrics.builder(otel).build()).build());
 * }</pre>
 *
 * <p>Meter {@value #METER_NAME}. Histograms of every completed operation that is not quarantined:
 * {@code nccl.operation.duration} (seconds, buckets 5 µs to 50 s) and
 * {@code nccl.operation.bus_bandwidth} (GB/s, buckets 0.5 to 1000, 50 GB/s apart where NVLink runs),
 * with bounded attributes: the communicator's name and id, the operation's name and kind
 * (collective, p2p), the collective's algorithm and protocol, and the reference's message-size bucket
 * ({@code 8-9KB}), never sequence numbers, ranks or timestamps; past {@link Builder#maxAttributeSets}
 * attribute sets further operations are counted in {@code nccl.inspector.attribute_sets.overflow}
 * instead. Counters: {@code nccl.inspector.records}, {@code nccl.inspector.dropped} and
 * {@code nccl.inspector.quarantined} by {@code nccl.inspector.reason} (read from the inspector
 * when the SDK collects), {@code nccl.inspector.slow_collectives} (every slow collective, those the
 * rate limit held back from listeners included) by kind, {@code nccl.inspector.hangs_suspected}.
 *
 * <p>From the records' network breakdown (quarantined ones included: it comes from the host
 * clock), counters per communicator rank (the communicator's name and id, and
 * {@code nccl.communicator.rank}): {@code nccl.network.operations}, {@code nccl.network.io} (bytes
 * by {@code network.io.direction}), {@code nccl.network.time}, {@code nccl.network.send_gpu_wait_time};
 * and per peer ({@code nccl.peer}): {@code nccl.network.slowest_peer.operations} and
 * {@code nccl.network.slowest_peer.wait_time}, the operations whose slowest peer it was and their
 * receive waits, for at most {@link Builder#maxPeersPerCommunicator} peers a communicator rank, the
 * others in {@code nccl.peer=other}. Past 256 communicators, breakdowns are counted in
 * {@code nccl.inspector.attribute_sets.overflow}.
 *
 * <p>With this module on the class path, {@code NCCL_INSPECTOR_OTEL=1} turns it on without code,
 * recording into {@code GlobalOpenTelemetry} (set up by the OpenTelemetry Java agent or SDK
 * autoconfiguration).
 */
public final class OpenTelemetryMetrics implements ExporterFactory {
  /** The exporter's name in a configuration. */
  public static final String NAME = "opentelemetry";
  /** The instrumentation scope the meters are created in. */
  public static final String METER_NAME = "io.ncclinspector";

  private final MeterProvider meterProvider;
  private final int maxAttributeSets;
  private final int maxPeers;

  private OpenTelemetryMetrics(Builder b) {
    this.meterProvider = b.meterProvider;
    this.maxAttributeSets = b.maxAttributeSets;
    this.maxPeers = b.maxPeers;
  }

  /**
   * The exporter with its defaults, recording into this OpenTelemetry's meter provider, for
   * {@code InspectorConfig.builder().exporter(...)}: each exporter module's {@code exporter(...)}
   * is its entry point ({@code JfrEvents.exporter()}, {@code PrometheusTextfile.exporter()}).
   */
  public static OpenTelemetryMetrics exporter(OpenTelemetry openTelemetry) {
    return builder(openTelemetry).build();
  }

  /** Metrics recorded into this OpenTelemetry's meter provider. */
  public static Builder builder(OpenTelemetry openTelemetry) {
    return new Builder(Objects.requireNonNull(openTelemetry, "openTelemetry").getMeterProvider());
  }

  /** Metrics recorded into this meter provider. */
  public static Builder builder(MeterProvider meterProvider) {
    return new Builder(Objects.requireNonNull(meterProvider, "meterProvider"));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public InspectorExporter start(ExporterContext context) {
    return new OpenTelemetryExporter(meterProvider, maxAttributeSets, maxPeers, context);
  }

  /** The attribute sets the histograms may have before operations are counted as overflow. */
  public int maxAttributeSets() {
    return maxAttributeSets;
  }

  /** The peers of a communicator rank with an {@code nccl.peer} value of their own. */
  public int maxPeersPerCommunicator() {
    return maxPeers;
  }

  /** Configures {@link OpenTelemetryMetrics}. */
  public static final class Builder {
    private final MeterProvider meterProvider;
    private int maxAttributeSets = 512;
    private int maxPeers = NetworkPeers.DEFAULT_MAX_PEERS;

    private Builder(MeterProvider meterProvider) {
      this.meterProvider = meterProvider;
    }

    /**
     * Distinct (communicator, operation, algorithm, protocol, size bucket) attribute sets that get
     * histogram points (512); operations of further ones are counted in
     * {@code nccl.inspector.attribute_sets.overflow}.
     */
    public Builder maxAttributeSets(int max) {
      maxAttributeSets = max;
      return this;
    }

    /**
     * Peers of a communicator rank with an {@code nccl.peer} value of their own in the per-peer
     * network counters ({@value NetworkPeers#DEFAULT_MAX_PEERS}): those waited for longest; the
     * others are folded into {@code nccl.peer=other}.
     */
    public Builder maxPeersPerCommunicator(int max) {
      maxPeers = max;
      return this;
    }

    /** @throws IllegalArgumentException if {@code maxAttributeSets} or {@code maxPeersPerCommunicator} is not positive */
    public OpenTelemetryMetrics build() {
      if (maxAttributeSets < 1) {
        throw new IllegalArgumentException("maxAttributeSets must be positive: " + maxAttributeSets);
      }
      if (maxPeers < 1) {
        throw new IllegalArgumentException("maxPeersPerCommunicator must be positive: " + maxPeers);
      }
      return new OpenTelemetryMetrics(this);
    }
  }
}
