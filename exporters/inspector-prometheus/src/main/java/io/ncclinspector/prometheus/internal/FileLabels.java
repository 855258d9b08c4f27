package io.ncclinspector.prometheus.internal;

import io.ncclinspector.export.ClassKey;
import io.prometheus.metrics.model.snapshots.Labels;

/**
 * The labels every series of a process carries, in the reference's names: {@code version} (the
 * metric format, {@code v5.1} as the reference writes it), {@code slurm_job_id} ({@code SLURM_JOB_ID}
 * or {@code unknown}) and {@code node} (the host name); plus the per-series ones.
 */
record FileLabels(String version, String slurmJobId, String node) {
  static final String FORMAT_VERSION = "v5.1";

  private static final String[] COLL_NAMES = {"version", "slurm_job_id", "node", "gpu", "comm_name",
      "n_nodes", "nranks", "collective", "message_size", "algo_proto"};
  private static final String[] P2P_NAMES = {"version", "slurm_job_id", "node", "gpu", "comm_name",
      "n_nodes", "nranks", "p2p_operation", "message_size"};
  private static final String[] NETWORK_NAMES = {"version", "slurm_job_id", "node", "gpu", "comm_name",
      "n_nodes", "nranks", "rank"};

  /** The labels of a series: {@code collective} or {@code p2p_operation}, {@code algo_proto} for collectives. */
  Labels labels(String gpu, ClassKey<CommShape> k) {
    CommShape c = k.communicator();
    if (k.collective()) {
      return Labels.of(COLL_NAMES, new String[] {version, slurmJobId, node, gpu, c.name(),
          Integer.toString(c.nodes()), Integer.toString(c.ranks()), k.operation(), k.messageSize(),
          k.algoProto()});
    }
    return Labels.of(P2P_NAMES, new String[] {version, slurmJobId, node, gpu, c.name(),
        Integer.toString(c.nodes()), Integer.toString(c.ranks()), k.operation(), k.messageSize()});
  }

  /** The labels of a communicator rank's network series; the per-peer ones add {@code peer}. */
  Labels network(String gpu, CommRank c) {
    return Labels.of(NETWORK_NAMES, new String[] {version, slurmJobId, node, gpu, c.shape().name(),
        Integer.toString(c.shape().nodes()), Integer.toString(c.shape().ranks()), Integer.toString(c.rank())});
  }

  /** The labels of process-wide series. */
  Labels process(long pid) {
    return Labels.of("version", version, "slurm_job_id", slurmJobId, "node", node, "pid", Long.toString(pid));
  }
}
