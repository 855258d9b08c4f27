package io.ncclinspector.prometheus.internal;

import io.ncclinspector.OperationRecord;
import io.ncclinspector.export.CommunicatorNetwork;
import io.ncclinspector.export.NetworkPeers;
import io.ncclinspector.export.NetworkTotals;
import io.ncclinspector.export.PeerWait;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.List;

/**
 * The network series of one GPU's file, from the records' network breakdown: per communicator
 * rank, counters of the operations that had one, the bytes sent and received, the network time and
 * the waits for the own GPU; per peer, of the operations it was the slowest peer of and their
 * receive waits, at most {@code maxPeers} peers a communicator rank and the rest in
 * {@code peer="other"} ({@link NetworkPeers}). Cumulative, as counters must be. Quarantined
 * records count: the breakdown comes from the host clock.
 */
final class NetworkSeries {
  static final String OPERATIONS = "nccl_inspector_network_operations";
  static final String SENT = "nccl_inspector_network_sent_bytes";
  static final String RECEIVED = "nccl_inspector_network_received_bytes";
  static final String TIME = "nccl_inspector_network_time_seconds";
  static final String SEND_GPU_WAIT = "nccl_inspector_network_send_gpu_wait_seconds";
  static final String SLOWEST_PEER = "nccl_inspector_network_slowest_peer_operations";
  static final String SLOWEST_PEER_WAIT = "nccl_inspector_network_slowest_peer_wait_seconds";

  private final NetworkPeers<CommRank> peers;

  NetworkSeries(int maxPeers) {
    this.peers = new NetworkPeers<>(maxPeers);
  }

  /** Adds a record's breakdown; false when it has none or its communicator is past the limit. */
  boolean add(OperationRecord r) {
    return peers.add(r, CommRank.of(r.communicator()));
  }

  /** Records left out because the GPU had {@link NetworkPeers#maxCommunicators()} communicator ranks. */
  long overflow() {
    return peers.overflow();
  }

  /** Adds the series to a file's content, if any communicator rank had a breakdown. */
  void addTo(MetricSnapshots.Builder out, FileLabels file, String gpu) {
    List<CommunicatorNetwork<CommRank>> comms = peers.snapshot();
    if (comms.isEmpty()) {
      return;
    }
    CounterSnapshot.Builder operations = counter(OPERATIONS,
        "Operations with a network breakdown (NCCL proxy events), per communicator rank");
    CounterSnapshot.Builder sent = counter(SENT, "Bytes the NCCL proxy handed to the network, per communicator rank");
    CounterSnapshot.Builder received = counter(RECEIVED, "Bytes received from the network, per communicator rank");
    CounterSnapshot.Builder time = counter(TIME,
        "First chunk posted to last proxy operation done, summed over operations, seconds");
    CounterSnapshot.Builder gpuWait = counter(SEND_GPU_WAIT,
        "Longest wait of each operation for the own GPU's first chunk to send, summed, seconds");
    CounterSnapshot.Builder slowest = counter(SLOWEST_PEER,
        "Operations whose longest receive wait was for this peer (top peers by wait; the rest in peer other)");
    CounterSnapshot.Builder slowestWait = counter(SLOWEST_PEER_WAIT,
        "Receive waits of the operations whose slowest peer this was, summed, seconds");
    boolean anyPeer = false;
    for (CommunicatorNetwork<CommRank> c : comms) {
      Labels labels = file.network(gpu, c.key());
      NetworkTotals t = c.totals();
      operations.dataPoint(point(labels, t.operations()));
      sent.dataPoint(point(labels, t.bytesSent()));
      received.dataPoint(point(labels, t.bytesReceived()));
      time.dataPoint(point(labels, t.networkNanos() / 1e9));
      gpuWait.dataPoint(point(labels, t.sendGpuWaitNanos() / 1e9));
      for (PeerWait w : c.peers()) {
        Labels peer = labels.add("peer", w.peer());
        slowest.dataPoint(point(peer, w.operations()));
        slowestWait.dataPoint(point(peer, w.waitNanos() / 1e9));
        anyPeer = true;
      }
    }
    out.metricSnapshot(operations.build()).metricSnapshot(sent.build()).metricSnapshot(received.build())
        .metricSnapshot(time.build()).metricSnapshot(gpuWait.build());
    if (anyPeer) {
      out.metricSnapshot(slowest.build()).metricSnapshot(slowestWait.build());
    }
  }

  private static CounterSnapshot.Builder counter(String name, String help) {
    return CounterSnapshot.builder().name(name).help(help);
  }

  private static CounterDataPointSnapshot point(Labels labels, double value) {
    return CounterDataPointSnapshot.builder().labels(labels).value(value).build();
  }
}
