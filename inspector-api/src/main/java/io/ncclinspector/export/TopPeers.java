package io.ncclinspector.export;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which peers of one communicator keep a label of their own: at most {@code maxLabelled}, those
 * with the largest receive wait attributed so far; the waits of the others are folded into
 * {@link NetworkPeers#OTHER}.
 *
 * <p>The first {@code maxLabelled} peers to be the slowest get a label. After that, a folded peer
 * takes the label of the labelled peer with the least wait so far once its own wait so far (folded
 * ones included) exceeds that one's by more than an eighth: the margin keeps two peers of about
 * the same wait from trading the label back and forth. Every label's figures only grow: a label
 * counts what was attributed to its peer while the peer had it, {@code other} what was attributed
 * to peers without one; a peer that loses its label stops having a series and, should it win one
 * back, goes on from what it had counted.
 *
 * <p>Not thread-safe: {@link NetworkPeers} guards it.
 */
final class TopPeers {
  /** A folded peer must exceed the least labelled one's wait by more than wait >> 3 (an eighth). */
  private static final int MARGIN_SHIFT = 3;

  private final int maxLabelled;
  private final Map<Integer, Peer> peers = new HashMap<>();
  private final List<Peer> labelled = new ArrayList<>();
  private long otherOperations;
  private long otherWaitNanos;

  TopPeers(int maxLabelled) {
    if (maxLabelled < 1) {
      throw new IllegalArgumentException("the peers with a label of their own must be at least 1: " + maxLabelled);
    }
    this.maxLabelled = maxLabelled;
  }

  /** Attributes one operation's receive wait to the peer it waited for; returns the label it went to. */
  String attribute(int rank, long waitNanos) {
    long wait = Math.max(0, waitNanos);
    Peer p = peers.computeIfAbsent(rank, Peer::new);
    p.totalWaitNanos += wait;
    if (!p.labelled && !claimLabel(p)) {
      otherOperations++;
      otherWaitNanos += wait;
      return NetworkPeers.OTHER;
    }
    p.operations++;
    p.waitNanos += wait;
    return p.label;
  }

  /** Gives the peer a label if one is free or it outwaits the least labelled peer by the margin. */
  private boolean claimLabel(Peer p) {
    if (labelled.size() < maxLabelled) {
      p.labelled = true;
      labelled.add(p);
      return true;
    }
    Peer least = labelled.get(0);
    for (Peer l : labelled) {
      if (l.totalWaitNanos < least.totalWaitNanos) {
        least = l;
      }
    }
    if (p.totalWaitNanos - least.totalWaitNanos <= (least.totalWaitNanos >> MARGIN_SHIFT)) {
      return false;
    }
    least.labelled = false;
    labelled.set(labelled.indexOf(least), p);
    p.labelled = true;
    return true;
  }

  /** The labels now: the labelled peers by rank, then {@code other} if anything was folded. */
  List<PeerWait> labels() {
    List<PeerWait> out = new ArrayList<>(labelled.size() + 1);
    labelled.stream().sorted(Comparator.comparingInt(Peer::rank))
        .forEach(p -> out.add(new PeerWait(p.label, p.operations, p.waitNanos)));
    if (otherOperations > 0) {
      out.add(new PeerWait(NetworkPeers.OTHER, otherOperations, otherWaitNanos));
    }
    return out;
  }

  /**
   * What a label counted: that of a peer that lost its label stays as it was, one never given is
   * zero.
   */
  PeerWait label(String label) {
    if (NetworkPeers.OTHER.equals(label)) {
      return new PeerWait(label, otherOperations, otherWaitNanos);
    }
    Peer p = null;
    try {
      p = peers.get(Integer.parseInt(label));
    } catch (NumberFormatException e) {
      // not a label of this communicator
    }
    return p == null || !p.label.equals(label) ? new PeerWait(label, 0, 0)
        : new PeerWait(label, p.operations, p.waitNanos);
  }

  /** A peer rank's tallies: its wait so far (for the ranking) and what its own label counted. */
  private static final class Peer {
    final int rank;
    final String label;
    long totalWaitNanos;
    long operations;
    long waitNanos;
    boolean labelled;

    Peer(int rank) {
      this.rank = rank;
      this.label = Integer.toString(rank);
    }

    int rank() {
      return rank;
    }
  }
}
