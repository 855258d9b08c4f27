package io.ncclinspector;

import java.util.Objects;

/**
 * The class of an operation within its communicator, as baselines and statistics group them:
 * operation, algorithm and protocol (collectives only) and message-size bucket (powers of two: a
 * message of {@code bytes} falls in the bucket of the largest power of two not above it).
 *
 * @param kind collective or point-to-point
 * @param operation AllReduce, ..., Send, Recv
 * @param algorithm the collective's algorithm; null for point-to-point operations, which have none
 * @param protocol the collective's protocol; null for point-to-point operations
 * @param sizeBucketBytes the size bucket's lower edge
 */
public record OperationClass(OperationKind kind, String operation, String algorithm, String protocol,
    long sizeBucketBytes) {

  public OperationClass {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(operation, "operation");
    if (kind == OperationKind.COLLECTIVE) {
      Objects.requireNonNull(algorithm, "algorithm");
      Objects.requireNonNull(protocol, "protocol");
    } else if (algorithm != null || protocol != null) {
      throw new IllegalArgumentException("a point-to-point class has no algorithm or protocol");
    }
  }

  /** A collective's class. */
  public static OperationClass collective(String operation, String algorithm, String protocol, long bytes) {
    return new OperationClass(OperationKind.COLLECTIVE, operation, algorithm, protocol, bucket(bytes));
  }

  /** A point-to-point operation's class. */
  public static OperationClass p2p(String operation, long bytes) {
    return new OperationClass(OperationKind.P2P, operation, null, null, bucket(bytes));
  }

  public static OperationClass of(OperationRecord r) {
    long bytes = r.transfer().messageBytes();
    if (r instanceof CollectiveRecord c) {
      return collective(c.operation(), c.algorithm().name(), c.algorithm().protocol(), bytes);
    }
    return p2p(r.operation(), bytes);
  }

  /* Written out rather than generated: the analysis thread looks classes up for every record. */
  @Override
  public boolean equals(Object o) {
    return this == o || o instanceof OperationClass c && sizeBucketBytes == c.sizeBucketBytes && kind == c.kind
        && operation.equals(c.operation) && Objects.equals(algorithm, c.algorithm)
        && Objects.equals(protocol, c.protocol);
  }

  @Override
  public int hashCode() {
    int h = kind.hashCode();
    h = 31 * h + operation.hashCode();
    h = 31 * h + Objects.hashCode(algorithm);
    h = 31 * h + Objects.hashCode(protocol);
    return 31 * h + Long.hashCode(sizeBucketBytes);
  }

  static long bucket(long bytes) {
    return bytes <= 0 ? 0 : Long.highestOneBit(bytes);
  }

  /** A short label, e.g. {@code AllReduce RING/SIMPLE 1MiB}, {@code Send 64KiB}. */
  public String label() {
    return kind == OperationKind.COLLECTIVE
        ? operation + " " + algorithm + "/" + protocol + " " + humanBytes(sizeBucketBytes)
        : operation + " " + humanBytes(sizeBucketBytes);
  }

  static String humanBytes(long b) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    long v = b;
    while (v >= 1024 && u < units.length - 1 && v % 1024 == 0) {
      v /= 1024;
      u++;
    }
    return v + units[u];
  }
}
