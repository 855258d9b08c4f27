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
 * @param profilerInterfaceVersion the profiler interface version NCCL used for it (1 to 6)
 * @param cudaDevice the CUDA device ordinal current when NCCL initialised it, or -1 when unknown
 * @param gpuUuid that device's UUID ({@code GPU-...}), or {@link #UNKNOWN_GPU} when unknown
 */
public record CommunicatorInfo(
    long serial, long id, String name, int rank, int ranks, int nodes, int profilerInterfaceVersion,
    int cudaDevice, String gpuUuid, int ncclVersionCode) {

  /** The name written when NCCL gave a communicator none. */
  public static final String UNKNOWN_NAME = "unknown";

  /** The GPU UUID written when the device could not be identified (no CUDA driver, v1-v3 init). */
  public static final String UNKNOWN_GPU = "unknown";

  public CommunicatorInfo {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(gpuUuid, "gpuUuid");
  }

  /** A communicator whose NCCL release is unknown. */
  public CommunicatorInfo(
      long serial, long id, String name, int rank, int ranks, int nodes, int profilerInterfaceVersion,
      int cudaDevice, String gpuUuid) {
    this(serial, id, name, rank, ranks, nodes, profilerInterfaceVersion, cudaDevice, gpuUuid, 0);
  }

  /**
   * The NCCL release that runs this communicator, as {@code major.minor.patch} (for example
   * {@code 2.30.7}), or empty when NCCL did not say (a replay of a trace that does not record it,
   * an NCCL older than 2.9).
   */
  public java.util.Optional<String> ncclVersion() {
    return ncclVersionText(ncclVersionCode);
  }

  /** {@code major.minor.patch} of an NCCL version code ({@code NCCL_VERSION_CODE}), or empty. */
  public static java.util.Optional<String> ncclVersionText(int code) {
    if (code < 20900) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(code / 10000 + "." + (code / 100) % 100 + "." + code % 100);
  }

  /** A communicator whose device is unknown. */
  public CommunicatorInfo(
      long serial, long id, String name, int rank, int ranks, int nodes, int profilerInterfaceVersion) {
    this(serial, id, name, rank, ranks, nodes, profilerInterfaceVersion, -1, UNKNOWN_GPU);
  }

  /** The id as the JSON output writes it: {@code 0x} and lower-case hex, all 64 bits. */
  public String idHex() {
    return "0x" + Long.toHexString(id);
  }
}
