package io.ncclinspector.report.synthetic;

/** The communicators and operations one simulated training iteration issues. */
public enum Workload {
  /** One communicator over all ranks running AllReduce of a few sizes: the straggler test bed. */
  WORLD_ALLREDUCE,
  /**
   * A small model-parallel job: a world communicator (AllReduce over a sweep of sizes, an
   * occasional Broadcast), tensor-parallel communicators inside each node (AllGather,
   * ReduceScatter), data-parallel communicators with one rank per node (AllReduce of gradient
   * buckets), a single-rank communicator per rank, and pipeline Send/Recv between nodes. Every
   * communication class of the report occurs.
   */
  TRAINING
}
