package io.ncclinspector.examples.nccl;

import static org.bytedeco.cuda.global.cudart.cudaGetErrorString;
import static org.bytedeco.cuda.global.nccl.ncclGetErrorString;

/** Error checks for CUDA runtime and NCCL calls: a failing call ends the benchmark with its message. */
final class Cuda {
  private Cuda() {}

  static void check(int rc, String what) {
    if (rc != 0) {
      throw new IllegalStateException(what + " failed: CUDA error " + rc + " (" + cudaGetErrorString(rc).getString() + ")");
    }
  }

  /** Fails unless {@code rc} is success ({@code ncclInProgress} too on a non-blocking communicator: see {@link NonBlocking}). */
  static void nccl(int rc, String what) {
    if (!NonBlocking.accepted(rc)) {
      throw new IllegalStateException(what + " failed: NCCL error " + rc + " (" + ncclGetErrorString(rc).getString() + ")");
    }
  }
}
