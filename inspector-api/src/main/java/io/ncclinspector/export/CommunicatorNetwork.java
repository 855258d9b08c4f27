package io.ncclinspector.export;

import io.ncclinspector.CommunicatorInfo;
import java.util.List;
import java.util.Objects;

/**
 * What {@link NetworkPeers} holds of one communicator: its totals and its peer labels.
 *
 * @param <C> how the exporter identifies a communicator (see {@link ClassKey})
 * @param key the communicator as the exporter identifies it
 * @param communicator the communicator of its first record (name, id and rank for the labels)
 * @param totals its network figures
 * @param peers the peers with a label of their own, by rank, then {@link NetworkPeers#OTHER} if
 *     any wait was folded into it
 */
public record CommunicatorNetwork<C>(C key, CommunicatorInfo communicator, NetworkTotals totals,
    List<PeerWait> peers) {

  public CommunicatorNetwork {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(communicator, "communicator");
    Objects.requireNonNull(totals, "totals");
    peers = List.copyOf(peers);
  }
}
