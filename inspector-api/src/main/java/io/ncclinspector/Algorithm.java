package io.ncclinspector;

import java.util.Objects;

/**
 * How NCCL ran a collective.
 *
 * @param name NCCL's algorithm name (RING, TREE, ...)
 * @param protocol NCCL's protocol name (LL, LL128, SIMPLE)
 * @param warps warps per channel NCCL launched
 */
public record Algorithm(String name, String protocol, int warps) {
  public Algorithm {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(protocol, "protocol");
  }
}
