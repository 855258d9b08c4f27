package io.ncclinspector.examples.nccl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Attributes CUPTI kernel records to the timed calls that launched them, by time: every timed call
 * has a window of CUPTI timestamps, taken just before its launch and just after its completion
 * was waited for, and windows do not overlap (the programs synchronise after each timed call). A
 * kernel belongs to the window that contains its midpoint: a timed kernel starts a launch latency
 * after its window opens and ends before the wait returns, so its midpoint is well inside even if
 * CUPTI's normalisation of GPU time to host time is off by a microsecond or two, while the kernel of
 * an untimed call just before the window ended before it opened. Kernels outside every window
 * (warm-up calls, other work) are counted, not attributed.
 */
final class KernelWindows {
  private KernelWindows() {}

  /** The CUPTI-clock interval of one timed call. */
  record Window(long call, long fromNanos, long toNanos) {}

  /** What CUPTI saw of one call: its NCCL kernels in start order. */
  record CallKernels(List<Cupti.Kernel> kernels) {
    static final CallKernels NONE = new CallKernels(List.of());

    int count() {
      return kernels.size();
    }

    /** Sum of the kernels' durations: the call's GPU busy time (its kernels run one after another on one stream). */
    long busyNanos() {
      return kernels.stream().mapToLong(Cupti.Kernel::durationNanos).sum();
    }

    /** First start to last end. */
    long spanNanos() {
      if (kernels.isEmpty()) {
        return 0;
      }
      long end = kernels.stream().mapToLong(Cupti.Kernel::endNanos).max().orElse(0);
      return end - kernels.get(0).startNanos();
    }

    long startNanos() {
      return kernels.isEmpty() ? 0 : kernels.get(0).startNanos();
    }

    String firstName() {
      return kernels.isEmpty() ? null : kernels.get(0).name();
    }
  }

  /** Kernels by call, and how many NCCL kernels fell in no window. */
  record Assignment(Map<Long, CallKernels> byCall, int unattributed) {
    CallKernels of(long call) {
      return byCall.getOrDefault(call, CallKernels.NONE);
    }
  }

  /**
   * Assigns NCCL kernels ({@link Cupti.Kernel#isNccl}) to windows. {@code windows} may come in
   * any order but must not overlap; kernels in any order.
   */
  static Assignment assign(List<Window> windows, List<Cupti.Kernel> kernels) {
    List<Window> w = new ArrayList<>(windows);
    w.sort((a, b) -> Long.compare(a.fromNanos(), b.fromNanos()));
    for (int i = 1; i < w.size(); i++) {
      if (w.get(i).fromNanos() < w.get(i - 1).toNanos()) {
        throw new IllegalArgumentException("windows of calls " + w.get(i - 1).call() + " and " + w.get(i).call() + " overlap");
      }
    }
    List<Cupti.Kernel> ks = new ArrayList<>(kernels);
    ks.sort((a, b) -> Long.compare(a.startNanos(), b.startNanos()));
    Map<Long, List<Cupti.Kernel>> lists = new HashMap<>();
    int outside = 0;
    for (Cupti.Kernel k : ks) {
      if (!k.isNccl()) {
        continue;
      }
      long mid = k.startNanos() + (k.endNanos() - k.startNanos()) / 2;
      int i = lastStartingAtOrBefore(w, mid);
      if (i >= 0 && mid <= w.get(i).toNanos()) {
        lists.computeIfAbsent(w.get(i).call(), c -> new ArrayList<>()).add(k);
      } else {
        outside++;
      }
    }
    Map<Long, CallKernels> out = new HashMap<>();
    lists.forEach((c, l) -> out.put(c, new CallKernels(List.copyOf(l))));
    return new Assignment(out, outside);
  }

  private static int lastStartingAtOrBefore(List<Window> w, long t) {
    int lo = 0;
    int hi = w.size() - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (w.get(mid).fromNanos() <= t) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }
}
