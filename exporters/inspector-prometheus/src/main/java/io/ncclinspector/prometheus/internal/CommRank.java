package io.ncclinspector.prometheus.internal;

import io.ncclinspector.CommunicatorInfo;

/**
 * How a GPU's file tells communicators apart in the network series: as in the others, by name and
 * shape ({@link CommShape}), and by the rank, which says whose peers the {@code peer} labels are.
 *
 * @param shape {@code comm_name}, {@code n_nodes}, {@code nranks}
 * @param rank {@code rank} label
 */
record CommRank(CommShape shape, int rank) {
  static CommRank of(CommunicatorInfo c) {
    return new CommRank(CommShape.of(c), c.rank());
  }
}
