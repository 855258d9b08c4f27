package io.ncclinspector.examples.nccl;

import static org.bytedeco.cuda.global.nccl.NCCL_VERSION_CODE;
import static org.bytedeco.cuda.global.nccl.ncclCommGetAsyncError;
import static org.bytedeco.cuda.global.nccl.ncclInProgress;
import static org.bytedeco.cuda.global.nccl.ncclSuccess;

import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.cuda.nccl.ncclConfig_t;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;

/**
 * {@code NONBLOCKING=1}: the programs' communicators are made non-blocking ({@code
 * ncclConfig_t.blocking = 0}). NCCL then runs each group's launch on a thread of its own
 * ({@code ncclAsyncJobMain}), created for that group and gone after it: the pattern of calling
 * threads that come and go, which the inspector's deferred mode must keep up with. Every call on
 * such a communicator may return {@code ncclInProgress}; the program then waits with {@link
 * #await} until the communicator is ready before its next call, as NCCL's documentation asks.
 */
final class NonBlocking {
  /** Whether this process makes its communicators non-blocking. */
  static final boolean ON = "1".equals(System.getenv("NONBLOCKING"));

  /** NCCL_CONFIG_UNDEF_INT: a field left to NCCL's default. */
  private static final int UNDEF = Integer.MIN_VALUE;
  private static final int CONFIG_MAGIC = 0xcafebeef;

  private NonBlocking() {}

  /** A configuration as NCCL_CONFIG_INITIALIZER makes it, with {@code blocking = 0}. */
  static ncclConfig_t config() {
    ncclConfig_t c = new ncclConfig_t();
    c.size(Loader.sizeof(ncclConfig_t.class)).magic(CONFIG_MAGIC).version(NCCL_VERSION_CODE);
    c.blocking(UNDEF).cgaClusterSize(UNDEF).minCTAs(UNDEF).maxCTAs(UNDEF).netName((BytePointer) null)
        .splitShare(UNDEF).trafficClass(UNDEF).commName((BytePointer) null).collnetEnable(UNDEF)
        .CTAPolicy(UNDEF).shrinkShare(UNDEF).nvlsCTAs(UNDEF).nChannelsPerNetPeer(UNDEF)
        .nvlinkCentricSched(UNDEF).graphUsageMode(UNDEF).numRmaCtx(UNDEF).maxP2pPeers(UNDEF)
        .graphStreamOrdering(UNDEF);
    return c.blocking(0);
  }

  /** Whether a return code means success here: {@code ncclInProgress} counts on a non-blocking communicator. */
  static boolean accepted(int rc) {
    return rc == ncclSuccess || (ON && rc == ncclInProgress);
  }

  /**
   * Waits until the communicator has finished its last call (init, a launch, a finalize); fails
   * with NCCL's error if it ended in one, or after {@code timeoutSeconds}.
   */
  static void await(ncclComm comm, String what, long timeoutSeconds) {
    if (!ON) {
      return;
    }
    int[] state = new int[1];
    long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
    while (true) {
      Cuda.nccl(ncclCommGetAsyncError(comm, state), "ncclCommGetAsyncError");
      if (state[0] != ncclInProgress) {
        Cuda.nccl(state[0], what);
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(what + ": still in progress after " + timeoutSeconds + " s");
      }
      Thread.onSpinWait();
    }
  }
}
