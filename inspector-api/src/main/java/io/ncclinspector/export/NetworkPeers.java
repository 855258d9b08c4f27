package io.ncclinspector.export;

import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.NetworkBreakdown;
import io.ncclinspector.OperationRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The network figures the metric exporters share, per communicator rank and per peer, with bounded
 * cardinality. Of every record with a network breakdown ({@link #contributes}):
 *
 * <ul>
 *   <li>per communicator, {@link NetworkTotals}: operations, bytes sent and received, network
 *       time, waits for the own GPU; NCCL's summary has no bytes per peer;
 *   <li>per peer, what is known per peer: the operations whose slowest peer it was (the one
 *       waited for longest) and their receive waits ({@link PeerWait}). At most
 *       {@code maxPeers} peers of a communicator keep a label of their own, those with the
 *       largest wait so far; the others are folded into {@value #OTHER} ({@link TopPeers} says
 *       how labels change hands). An operation without receives has no slowest peer and adds to
 *       the totals only.
 * </ul>
 *
 * <p>Quarantined records count here: quarantine is about the GPU's timestamps, and the breakdown
 * comes from the host clock of NCCL's proxy thread. At most {@code maxCommunicators}
 * communicators are kept; records of further ones are counted in {@link #overflow()}. So an
 * exporter has at most {@code maxCommunicators * (maxPeers + 1)} peer series per metric.
 *
 * <p>Thread-safe: the exporter's thread adds while a registry's or SDK's thread reads.
 *
 * @param <C> how the exporter identifies a communicator (see {@link ClassKey})
 */
public final class NetworkPeers<C> {
  /** Peers of a communicator with a label of their own, unless configured otherwise. */
  public static final int DEFAULT_MAX_PEERS = 8;
  /** Communicators kept, unless configured otherwise. */
  public static final int DEFAULT_MAX_COMMUNICATORS = 256;
  /** The label of the peers folded together. */
  public static final String OTHER = "other";

  private final int maxPeers;
  private final int maxCommunicators;
  private final Map<C, State> communicators = new LinkedHashMap<>();
  private long overflow;

  /**
   * @throws IllegalArgumentException if either limit is not positive
   */
  public NetworkPeers(int maxPeers, int maxCommunicators) {
    if (maxPeers < 1) {
      throw new IllegalArgumentException("maxPeers must be positive: " + maxPeers);
    }
    if (maxCommunicators < 1) {
      throw new IllegalArgumentException("maxCommunicators must be positive: " + maxCommunicators);
    }
    this.maxPeers = maxPeers;
    this.maxCommunicators = maxCommunicators;
  }

  /** Up to {@code maxPeers} labelled peers per communicator, {@link #DEFAULT_MAX_COMMUNICATORS} communicators. */
  public NetworkPeers(int maxPeers) {
    this(maxPeers, DEFAULT_MAX_COMMUNICATORS);
  }

  /**
   * Whether a record adds to the network figures: when NCCL reported proxy events for it
   * (not on NVLink or shared memory), quarantined or not.
   */
  public static boolean contributes(OperationRecord r) {
    return r.network().present();
  }

  /**
   * Adds a record's breakdown to its communicator; false when it has none ({@link #contributes})
   * or its communicator would be past {@code maxCommunicators} (then counted in {@link #overflow()}).
   */
  public synchronized boolean add(OperationRecord r, C communicator) {
    Objects.requireNonNull(communicator, "communicator");
    if (!contributes(r)) {
      return false;
    }
    State s = communicators.get(communicator);
    if (s == null) {
      if (communicators.size() >= maxCommunicators) {
        overflow++;
        return false;
      }
      s = new State(r.communicator(), new TopPeers(maxPeers));
      communicators.put(communicator, s);
    }
    NetworkBreakdown n = r.network();
    s.totals = s.totals.plus(n);
    if (n.slowestPeer() >= 0) {
      s.peers.attribute(n.slowestPeer(), n.receiveWaitNanos());
    }
    return true;
  }

  /** Every communicator, in the order they first had a breakdown. */
  public synchronized List<CommunicatorNetwork<C>> snapshot() {
    List<CommunicatorNetwork<C>> out = new ArrayList<>(communicators.size());
    communicators.forEach((key, s) -> out.add(s.snapshot(key)));
    return out;
  }

  /** One communicator, if it had a breakdown. */
  public synchronized Optional<CommunicatorNetwork<C>> communicator(C key) {
    State s = communicators.get(key);
    return s == null ? Optional.empty() : Optional.of(s.snapshot(key));
  }

  /** A communicator's totals ({@link NetworkTotals#ZERO} for one without a breakdown). */
  public synchronized NetworkTotals totals(C key) {
    State s = communicators.get(key);
    return s == null ? NetworkTotals.ZERO : s.totals;
  }

  /**
   * What a peer label of a communicator counted, whether the peer has the label now or had it
   * (zero for a label it never had).
   */
  public synchronized PeerWait peer(C key, String label) {
    State s = communicators.get(key);
    return s == null ? new PeerWait(label, 0, 0) : s.peers.label(label);
  }

  /** Records with a breakdown left out because {@code maxCommunicators} communicators were kept. */
  public synchronized long overflow() {
    return overflow;
  }

  /** The most peers of a communicator with a label of their own. */
  public int maxPeers() {
    return maxPeers;
  }

  /** The most communicators kept. */
  public int maxCommunicators() {
    return maxCommunicators;
  }

  /** One communicator's figures. */
  private static final class State {
    final CommunicatorInfo communicator;
    final TopPeers peers;
    NetworkTotals totals = NetworkTotals.ZERO;

    State(CommunicatorInfo communicator, TopPeers peers) {
      this.communicator = communicator;
      this.peers = peers;
    }

    <C> CommunicatorNetwork<C> snapshot(C key) {
      return new CommunicatorNetwork<>(key, communicator, totals, peers.labels());
    }
  }
}
