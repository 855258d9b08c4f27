package io.ncclinspector.opentelemetry.internal;

import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.export.CommunicatorNetwork;
import io.ncclinspector.export.NetworkPeers;
import io.ncclinspector.export.NetworkTotals;
import io.ncclinspector.export.PeerWait;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.BatchCallback;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableDoubleMeasurement;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;

/**
 * The network instruments of {@link OpenTelemetryExporter}: observable counters over the shared
 * {@link NetworkPeers}, observed in one batch callback when the SDK collects. Per communicator rank
 * ({@code nccl.communicator.name}, {@code nccl.communicator.id}, {@code nccl.communicator.rank}):
 * {@code nccl.network.operations}, {@code nccl.network.io} (bytes, by {@code network.io.direction}
 * {@code transmit} or {@code receive}), {@code nccl.network.time} and
 * {@code nccl.network.send_gpu_wait_time} (seconds). Per peer ({@code nccl.peer}):
 * {@code nccl.network.slowest_peer.operations} and {@code nccl.network.slowest_peer.wait_time}
 * (seconds), at most {@code maxPeers} peers a communicator rank and the rest in
 * {@code nccl.peer=other}. Observed, not recorded: a peer that loses its label is no longer
 * reported, so the attribute sets stay bounded.
 */
final class NetworkInstruments implements AutoCloseable {
  static final AttributeKey<Long> RANK = AttributeKey.longKey("nccl.communicator.rank");
  static final AttributeKey<String> PEER = AttributeKey.stringKey("nccl.peer");
  /** OpenTelemetry's semantic-convention attribute of network traffic direction. */
  static final AttributeKey<String> DIRECTION = AttributeKey.stringKey("network.io.direction");

  private final NetworkPeers<Long> peers;
  private final BatchCallback callback;

  NetworkInstruments(Meter meter, int maxPeers) {
    this.peers = new NetworkPeers<>(maxPeers);
    ObservableLongMeasurement operations = meter.counterBuilder("nccl.network.operations").setUnit("{operation}")
        .setDescription("Operations with a network breakdown (NCCL proxy events)").buildObserver();
    ObservableLongMeasurement io = meter.counterBuilder("nccl.network.io").setUnit("By")
        .setDescription("Bytes the NCCL proxy handed to the network (transmit) and received (receive)")
        .buildObserver();
    ObservableDoubleMeasurement time = meter.counterBuilder("nccl.network.time").ofDoubles().setUnit("s")
        .setDescription("First chunk posted to last proxy operation done, summed over operations").buildObserver();
    ObservableDoubleMeasurement gpuWait = meter.counterBuilder("nccl.network.send_gpu_wait_time").ofDoubles()
        .setUnit("s").setDescription("Longest wait of each operation for the own GPU's first chunk to send, summed")
        .buildObserver();
    ObservableLongMeasurement slowest = meter.counterBuilder("nccl.network.slowest_peer.operations")
        .setUnit("{operation}").setDescription("Operations whose longest receive wait was for this peer "
            + "(the peers waited for longest; the others in nccl.peer=other)").buildObserver();
    ObservableDoubleMeasurement slowestWait = meter.counterBuilder("nccl.network.slowest_peer.wait_time")
        .ofDoubles().setUnit("s").setDescription("Receive waits of the operations whose slowest peer this was, summed")
        .buildObserver();
    callback = meter.batchCallback(() -> {
      for (CommunicatorNetwork<Long> c : peers.snapshot()) {
        Attributes a = attributes(c.communicator());
        NetworkTotals t = c.totals();
        operations.record(t.operations(), a);
        io.record(t.bytesSent(), a.toBuilder().put(DIRECTION, "transmit").build());
        io.record(t.bytesReceived(), a.toBuilder().put(DIRECTION, "receive").build());
        time.record(t.networkNanos() / 1e9, a);
        gpuWait.record(t.sendGpuWaitNanos() / 1e9, a);
        for (PeerWait w : c.peers()) {
          Attributes peer = a.toBuilder().put(PEER, w.peer()).build();
          slowest.record(w.operations(), peer);
          slowestWait.record(w.waitNanos() / 1e9, peer);
        }
      }
    }, operations, io, time, gpuWait, slowest, slowestWait);
  }

  /**
   * Adds a record's breakdown; false when it has none ({@link NetworkPeers#contributes}) or its
   * communicator would be past {@link NetworkPeers#maxCommunicators()}.
   */
  boolean record(OperationRecord r) {
    return peers.add(r, r.communicator().serial());
  }

  private static Attributes attributes(CommunicatorInfo c) {
    return Attributes.of(OpenTelemetryExporter.COMMUNICATOR, c.name(), OpenTelemetryExporter.COMMUNICATOR_ID,
        c.idHex(), RANK, (long) c.rank());
  }

  /** Stops observing. */
  @Override
  public void close() {
    callback.close();
  }
}
