package io.ncclinspector.report.synthetic;

/** Which producer's JSON Lines the generator imitates. */
public enum LogFormat {
  /**
   * This project's output: all 64 bits of the communicator id, nanosecond fields, GPU start
   * timestamps (what the straggler analysis needs), algorithm, protocol, tags and flags.
   */
  JVM,
  /**
   * NVIDIA's reference Inspector: the reference fields only, the communicator id cut to 14 hex
   * digits, and (optionally) its near-2^64 message sizes for uint8 collectives.
   */
  REFERENCE
}
