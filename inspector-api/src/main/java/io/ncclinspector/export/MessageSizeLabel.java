package io.ncclinspector.export;

import java.util.HashMap;
import java.util.Map;

/**
 * The reference Inspector's {@code message_size} label: the size divided by 1024 until it is
 * below 1024 (units B, KB, MB, GB, TB), written as {@code <floor>-<floor+1><unit>}; 8 KiB is
 * {@code 8-9KB}, 4.5 GiB {@code 4-5GB}. Dashboards group by this exact text.
 */
public final class MessageSizeLabel {
  private static final String[] UNITS = {"B", "KB", "MB", "GB", "TB"};
  /** Labels by bucket key; a job uses a few dozen sizes, the cap guards against anything else. */
  private static final int CACHE_LIMIT = 4096;

  private final Map<Long, String> cache = new HashMap<>();

  /** A labeller with its own cache. */
  public MessageSizeLabel() {}

  /** The label of a message size (not thread-safe: one instance per writer thread). */
  public String of(long bytes) {
    long key = bucketKey(bytes);
    String label = cache.get(key);
    if (label == null) {
      label = format(bytes);
      if (cache.size() < CACHE_LIMIT) {
        cache.put(key, label);
      }
    }
    return label;
  }

  /** floor(size / 1024^unit) * 1024^unit: the bytes that identify a bucket. */
  public static long bucketKey(long bytes) {
    long b = Math.max(bytes, 0);
    long scale = scale(b);
    return (b / scale) * scale;
  }

  public static String format(long bytes) {
    long b = Math.max(bytes, 0);
    long scale = scale(b);
    long floor = b / scale;
    return floor + "-" + (floor + 1) + UNITS[Long.numberOfTrailingZeros(scale) / 10];
  }

  /** 1024^unit for the largest unit (up to TB) in which the size is at least 1. */
  private static long scale(long b) {
    long scale = 1;
    for (int unit = 0; b / scale >= 1024 && unit < UNITS.length - 1; unit++) {
      scale *= 1024;
    }
    return scale;
  }
}
