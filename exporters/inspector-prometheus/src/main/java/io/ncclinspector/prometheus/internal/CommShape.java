package io.ncclinspector.prometheus.internal;

import io.ncclinspector.CommunicatorInfo;

/**
 * How a GPU's file tells communicators apart: by name and shape. The reference merges
 * communicators of the same name and shape on one GPU into one series (rank and communicator id
 * are not labels), and so does this; with the operation's class it makes a series' key
 * ({@link io.ncclinspector.export.ClassKey}).
 *
 * @param name {@code comm_name} label
 * @param nodes {@code n_nodes} label
 * @param ranks {@code nranks} label
 */
record CommShape(String name, int nodes, int ranks) {
  static CommShape of(CommunicatorInfo c) {
    return new CommShape(c.name(), c.nodes(), c.ranks());
  }
}
