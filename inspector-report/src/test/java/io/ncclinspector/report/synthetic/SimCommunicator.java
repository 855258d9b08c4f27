package io.ncclinspector.report.synthetic;

import java.util.Arrays;

/**
 * A simulated communicator: its 64-bit id, name, and the global ranks of its members (member
 * {@code i} is the communicator's rank {@code i}).
 */
record SimCommunicator(long id, String name, int[] globalRanks, int nodes, Link link) {

  /** What carries the communicator's traffic, which sets its latency and bandwidth. */
  enum Link {
    LOCAL(3_000, 800),
    NVLINK(10_000, 250),
    NETWORK(25_000, 45),
    MIXED(30_000, 40);

    final long latencyNanos;
    /** Bus bandwidth in GB/s, i.e. bytes per nanosecond. */
    final double busBandwidth;

    Link(long latencyNanos, double busBandwidth) {
      this.latencyNanos = latencyNanos;
      this.busBandwidth = busBandwidth;
    }
  }

  int size() {
    return globalRanks.length;
  }

  /** The member index of a global rank, or -1. */
  int memberOf(int globalRank) {
    for (int i = 0; i < globalRanks.length; i++) {
      if (globalRanks[i] == globalRank) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SimCommunicator c && c.id == id && c.name.equals(name)
        && Arrays.equals(c.globalRanks, globalRanks) && c.nodes == nodes && c.link == link;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(id);
  }

  @Override
  public String toString() {
    return name + Arrays.toString(globalRanks);
  }
}
