package io.ncclinspector;

/**
 * The class of an operation within its communicator, as baselines and statistics group them:
 * operation, algorithm, protocol and message-size bucket (powers of two: a message of
 * {@code bytes} falls in the bucket of the largest power of two not above it).
 */
public record OperationClass(String operation, String algorithm, String protocol, long sizeBucketBytes) {

  public static OperationClass of(OperationRecord r) {
    if (r instanceof CollectiveRecord c) {
      return new OperationClass(c.operation(), c.algorithm(), c.protocol(), bucket(c.messageBytes()));
    }
    return new OperationClass(r.operation(), "P2P", "None", bucket(r.messageBytes()));
  }

  static long bucket(long bytes) {
    return bytes <= 0 ? 0 : Long.highestOneBit(bytes);
  }

  /** A short label, e.g. {@code AllReduce RING/SIMPLE 1MiB}. */
  public String label() {
    return operation + " " + algorithm + "/" + protocol + " " + humanBytes(sizeBucketBytes);
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
