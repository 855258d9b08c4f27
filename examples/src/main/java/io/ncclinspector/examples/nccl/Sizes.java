package io.ncclinspector.examples.nccl;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Byte sizes on the command line ({@code 8192}, {@code 8K}, {@code 64KiB}, {@code 1G}: binary units) and in tables. */
final class Sizes {
  private Sizes() {}

  static long parse(String s) {
    String t = s.trim().toUpperCase(Locale.ROOT).replace("_", "");
    long unit = 1;
    if (t.endsWith("IB")) {
      t = t.substring(0, t.length() - 2);
    } else if (t.endsWith("B")) {
      t = t.substring(0, t.length() - 1);
    }
    if (t.endsWith("K")) {
      unit = 1L << 10;
    } else if (t.endsWith("M")) {
      unit = 1L << 20;
    } else if (t.endsWith("G")) {
      unit = 1L << 30;
    }
    if (unit != 1) {
      t = t.substring(0, t.length() - 1);
    }
    if (t.isEmpty()) {
      throw new NumberFormatException(s);
    }
    return Math.multiplyExact(Long.parseLong(t), unit);
  }

  /** 8 B, 64 KiB, 1 MiB, 1.5 MiB. */
  static String label(long bytes) {
    String[] units = {"B", "KiB", "MiB", "GiB"};
    double v = bytes;
    int u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return v == Math.rint(v) ? String.format(Locale.ROOT, "%d %s", (long) v, units[u])
        : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
  }

  /**
   * from, from*factor, ... as long as they do not pass {@code to}, then {@code to} itself if the
   * steps did not land on it (8 B .. 1 GiB in steps of 4 ends 128 MiB, 512 MiB, 1 GiB).
   */
  static List<Long> geometric(long from, long to, int factor) {
    if (from <= 0 || to < from || factor < 2) {
      throw new IllegalArgumentException("sizes: need 0 < from <= to and factor >= 2, got " + from + ".." + to + " x" + factor);
    }
    List<Long> out = new ArrayList<>();
    for (long s = from; s <= to; s *= factor) {
      out.add(s);
      if (s > Long.MAX_VALUE / factor) {
        break;
      }
    }
    if (out.get(out.size() - 1) < to) {
      out.add(to);
    }
    return out;
  }
}
