package io.ncclinspector;

import java.util.Objects;

/**
 * What an operation moved and how fast: its size and its bandwidths.
 *
 * @param count elements as NCCL gave them (for AllGather and Broadcast NCCL passes bytes)
 * @param datatype NCCL's datatype name
 * @param messageBytes message size: element count times element size
 * @param algorithmBandwidthGbs algorithm bandwidth in GB/s (1e9 bytes per second)
 * @param busBandwidthGbs bus bandwidth in GB/s, by the nccl-tests factors
 */
public record Transfer(long count, String datatype, long messageBytes, double algorithmBandwidthGbs,
    double busBandwidthGbs) {

  public Transfer {
    Objects.requireNonNull(datatype, "datatype");
  }
}
