package io.ncclinspector.examples.nccl;

import static org.bytedeco.cuda.global.nccl.ncclAllGather;
import static org.bytedeco.cuda.global.nccl.ncclAllReduce;
import static org.bytedeco.cuda.global.nccl.ncclAlltoAll;
import static org.bytedeco.cuda.global.nccl.ncclBroadcast;
import static org.bytedeco.cuda.global.nccl.ncclFloat32;
import static org.bytedeco.cuda.global.nccl.ncclGroupEnd;
import static org.bytedeco.cuda.global.nccl.ncclGroupStart;
import static org.bytedeco.cuda.global.nccl.ncclRecv;
import static org.bytedeco.cuda.global.nccl.ncclReduceScatter;
import static org.bytedeco.cuda.global.nccl.ncclSend;
import static org.bytedeco.cuda.global.nccl.ncclSum;

import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.javacpp.Pointer;

/**
 * The benchmarked operations, with nccl-tests' size and bus-bandwidth conventions: {@code size} is
 * the bytes of the larger of the send and receive buffers of one rank, elements are float32.
 */
enum Operation {
  ALL_REDUCE("AllReduce", true) {
    @Override
    void launch(Buffers b, long size, int ranks, int rank, ncclComm comm, CUstream_st stream) {
      Cuda.nccl(ncclAllReduce(b.send, b.recv, Math.max(1, size / 4), ncclFloat32, ncclSum, comm, stream), name);
    }

    @Override
    double busFactor(int n) {
      return 2.0 * (n - 1) / n;
    }
  },
  ALL_GATHER("AllGather", true) {
    @Override
    void launch(Buffers b, long size, int ranks, int rank, ncclComm comm, CUstream_st stream) {
      Cuda.nccl(ncclAllGather(b.send, b.recv, Math.max(1, size / 4 / ranks), ncclFloat32, comm, stream), name);
    }

    @Override
    double busFactor(int n) {
      return (double) (n - 1) / n;
    }
  },
  REDUCE_SCATTER("ReduceScatter", true) {
    @Override
    void launch(Buffers b, long size, int ranks, int rank, ncclComm comm, CUstream_st stream) {
      Cuda.nccl(ncclReduceScatter(b.send, b.recv, Math.max(1, size / 4 / ranks), ncclFloat32, ncclSum, comm, stream), name);
    }

    @Override
    double busFactor(int n) {
      return (double) (n - 1) / n;
    }
  },
  BROADCAST("Broadcast", true) {
    @Override
    void launch(Buffers b, long size, int ranks, int rank, ncclComm comm, CUstream_st stream) {
      Cuda.nccl(ncclBroadcast(b.send, b.recv, Math.max(1, size / 4), ncclFloat32, 0, comm, stream), name);
    }

    @Override
    double busFactor(int n) {
      return 1;
    }
  },
  /**
   * Two broadcasts in one group, from roots 0 and 1 (a framework batching its broadcasts). NCCL 2.29
   * and later run them as one AllGatherV, which has hung profiled jobs on 2.30.7
   * (docs/nccl-defects-and-releases.md: "Known NCCL defects"). Two calls: NCCL numbers each; the
   * size is each broadcast's.
   */
  BROADCAST_GROUP("BroadcastGroup2", true) {
    @Override
    void launch(Buffers b, long size, int ranks, int rank, ncclComm comm, CUstream_st stream) {
      Cuda.nccl(ncclGroupStart(), "ncclGroupStart");
      Cuda.nccl(ncclBroadcast(b.send, b.recv, Math.max(1, size / 4), ncclFloat32, 0, comm, stream), "ncclBroadcast");
      Cuda.nccl(ncclBroadcast(b.send, b.recv2, Math.max(1, size / 4), ncclFloat32, 1 % ranks, comm, stream),
          "ncclBroadcast");
      Cuda.nccl(ncclGroupEnd(), "ncclGroupEnd");
    }

    @Override
    int calls() {
      return 2;
    }

    @Override
    double busFactor(int n) {
      return 1;
    }
  },
  ALL_TO_ALL("AlltoAll", true) {
    @Override
    void launch(Buffers b, long size, int ranks, int rank, ncclComm comm, CUstream_st stream) {
      Cuda.nccl(ncclAlltoAll(b.send, b.recv, Math.max(1, size / 4 / ranks), ncclFloat32, comm, stream), name);
    }

    @Override
    double busFactor(int n) {
      return (double) (n - 1) / n;
    }
  },
  SEND_RECV("SendRecv", false) {
    /** A ring: every rank sends to the next and receives from the previous, in one group. */
    @Override
    void launch(Buffers b, long size, int ranks, int rank, ncclComm comm, CUstream_st stream) {
      Cuda.nccl(ncclGroupStart(), "ncclGroupStart");
      Cuda.nccl(ncclSend(b.send, Math.max(1, size / 4), ncclFloat32, (rank + 1) % ranks, comm, stream), "ncclSend");
      Cuda.nccl(ncclRecv(b.recv, Math.max(1, size / 4), ncclFloat32, (rank - 1 + ranks) % ranks, comm, stream), "ncclRecv");
      Cuda.nccl(ncclGroupEnd(), "ncclGroupEnd");
    }

    @Override
    double busFactor(int n) {
      return 1;
    }
  };

  final String name;
  /** Whether NCCL counts it as a collective (one sequence number per call). */
  final boolean collective;

  Operation(String name, boolean collective) {
    this.name = name;
    this.collective = collective;
  }

  abstract void launch(Buffers b, long size, int ranks, int rank, ncclComm comm, CUstream_st stream);

  /** nccl-tests' bus bandwidth factor for n ranks. */
  abstract double busFactor(int n);

  /** NCCL calls one launch makes (each gets a record). */
  int calls() {
    return 1;
  }

  /** The operation's name in NCCL's events and the profilers' records. */
  String recordName() {
    return this == BROADCAST_GROUP ? BROADCAST.name : name;
  }

  static Operation byName(String s) {
    for (Operation o : values()) {
      if (o.name.equalsIgnoreCase(s) || o.name().equalsIgnoreCase(s)) {
        return o;
      }
    }
    throw new IllegalArgumentException("unknown operation '" + s + "'");
  }

  /** Device buffers big enough for every operation at the largest size. */
  static final class Buffers {
    final Pointer send = new Pointer();
    final Pointer recv = new Pointer();
    /** The second receive buffer of a grouped broadcast (two roots, two destinations). */
    final Pointer recv2 = new Pointer();
  }
}
