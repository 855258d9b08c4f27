package io.ncclinspector;

/**
 * The kernel channels of an operation.
 *
 * @param announced channels NCCL announced for it
 * @param seen kernel channels that started
 * @param desynced channels left out of the timing because they carried other work items'
 *     timestamps (NCCL's kernel-channel counter desync); 0 normally
 * @param recovery how the GPU time was obtained (channel recovery)
 */
public record Channels(int announced, int seen, int desynced, TimeRecovery recovery) {
  public Channels {
    java.util.Objects.requireNonNull(recovery, "recovery");
  }

  /** Channels without recovery information. */
  public Channels(int announced, int seen, int desynced) {
    this(announced, seen, desynced, TimeRecovery.NONE);
  }
}
