package io.ncclinspector.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The classes of one operation (AllReduce, Send, ...) in one communicator: what a class that is
 * still warming up is judged against. Analysis thread only.
 */
final class ClassFamily {
  private final List<ClassBaseline> members = new ArrayList<>();

  void add(ClassBaseline b) {
    members.add(b);
  }

  /**
   * The normal upper bound the established members (at least {@code warmup} samples) set for a
   * class of size bucket {@code sizeBucket}: the tightest of their bounds, each scaled up by how
   * much larger its messages may be (a bucket holds sizes up to twice its lower edge; time grows
   * at most in proportion to size). 0 when no member is established.
   */
  long boundFor(ClassBaseline young, int warmup) {
    double best = Double.POSITIVE_INFINITY;
    double size = Math.max(young.operationClass.sizeBucketBytes(), 1);
    for (ClassBaseline m : members) {
      if (m != young && m.samples() >= warmup) {
        double scale = Math.max(1.0, 2.0 * size / Math.max(m.operationClass.sizeBucketBytes(), 1));
        best = Math.min(best, m.high() * scale);
      }
    }
    return best == Double.POSITIVE_INFINITY ? 0 : (long) Math.min(best, (double) (Long.MAX_VALUE / 4));
  }
}
