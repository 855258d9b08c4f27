package io.ncclinspector;

import java.util.Objects;

/**
 * One NCCL communicator as NCCL described it to the profiler at init.
 *
 * @param serial unique per communicator init in this process (NCCL may reuse a communicator id)
 * @param id NCCL's 64-bit communicator hash, identical on every rank of the communicator
 * @param name the communicator name, or {@code "unknown"} when NCCL gave none
 * @param rank this process's rank in the communicator
 * @param ranks number of ranks
 * @param nodes number of nodes NCCL counted
 * @param profilerInterfaceVersion the profiler interface version NCCL used for it (4 or 5)
 */
public record CommunicatorInfo(
    long serial, long id, String name, int rank, int ranks, int nodes, int profilerInterfaceVersion) {

  /** The name written when NCCL gave a communicator none. */
  public static final String UNKNOWN_NAME = "unknown";

  public CommunicatorInfo {
    Objects.requireNonNull(name, "name");
  }

  /** The id as the JSON output writes it: {@code 0x} and lower-case hex, all 64 bits. */
  public String idHex() {
    return "0x" + Long.toHexString(id);
  }
}
