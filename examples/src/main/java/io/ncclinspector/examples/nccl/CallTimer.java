package io.ncclinspector.examples.nccl;

import static org.bytedeco.cuda.global.cudart.cudaEventCreate;
import static org.bytedeco.cuda.global.cudart.cudaEventDestroy;
import static org.bytedeco.cuda.global.cudart.cudaEventElapsedTime;
import static org.bytedeco.cuda.global.cudart.cudaEventRecord;
import static org.bytedeco.cuda.global.cudart.cudaEventSynchronize;
import static org.bytedeco.cuda.global.cudart.cudaStreamSynchronize;

import java.time.Instant;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUstream_st;

/**
 * Times NCCL calls on one stream with the clocks the validation compares against the inspector:
 * a CUDA-event pair around the call, the host time of the call (enqueue) and of the call with its
 * completion, the wall-clock window, and the CUPTI-clock window in which its kernels must start
 * (see {@link KernelWindows}). With a barrier, all ranks pass it right before recording the start
 * event, so that the event pair brackets the kernel rather than the wait for a late peer.
 */
final class CallTimer implements AutoCloseable {
  /** The clocks of one timed call (or one batch of back-to-back calls). */
  record Timing(long cudaEventNanos, long enqueueNanos, long wallNanos, long wallStartNanos, long wallEndNanos,
      long cuptiFromNanos, long cuptiToNanos) {}

  private final CUstream_st stream;
  private final ShmBarrier barrier;
  private final Cupti cupti;
  private final CUevent_st start = new CUevent_st();
  private final CUevent_st stop = new CUevent_st();
  private final float[] ms = new float[1];

  /** {@code barrier} and {@code cupti} may be null (no rank synchronisation, no CUPTI window). */
  CallTimer(CUstream_st stream, ShmBarrier barrier, Cupti cupti) {
    this.stream = stream;
    this.barrier = barrier;
    this.cupti = cupti;
    Cuda.check(cudaEventCreate(start), "cudaEventCreate");
    Cuda.check(cudaEventCreate(stop), "cudaEventCreate");
  }

  /** Runs {@code launch} once, timed; returns after it completed on the GPU. */
  Timing time(Runnable launch) {
    return batch(1, launch);
  }

  /**
   * Runs {@code launch} {@code n} times back to back between one event pair (the nccl-tests way of
   * measuring bandwidth); the times are of the whole batch.
   */
  Timing batch(int n, Runnable launch) {
    syncRanks();
    long cuptiFrom = cupti != null ? Cupti.now() : 0;
    long wall0 = wallNanos();
    long a = System.nanoTime();
    Cuda.check(cudaEventRecord(start, stream), "cudaEventRecord");
    for (int i = 0; i < n; i++) {
      launch.run();
    }
    long b = System.nanoTime();
    Cuda.check(cudaEventRecord(stop, stream), "cudaEventRecord");
    Cuda.check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    long c = System.nanoTime();
    long cuptiTo = cupti != null ? Cupti.now() : 0;
    Cuda.check(cudaEventElapsedTime(ms, start, stop), "cudaEventElapsedTime");
    return new Timing(Math.round(ms[0] * 1e6), b - a, c - a, wall0, wall0 + (c - a), cuptiFrom, cuptiTo);
  }

  /** Runs {@code launch} untimed (warm-up) and waits for it. */
  void untimed(Runnable launch) {
    syncRanks();
    launch.run();
    Cuda.check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }

  void syncRanks() {
    if (barrier != null) {
      barrier.await();
    }
  }

  boolean cupti() {
    return cupti != null;
  }

  /** Wall-clock nanoseconds since the epoch (the clock of the inspector's wall times). */
  static long wallNanos() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  @Override
  public void close() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
}
