package io.ncclinspector;

import java.util.Locale;

/** Short human forms of nanosecond durations for messages: {@code 95 us}, {@code 2.1 ms}, {@code 1.5 s}. */
final class Durations {
  private Durations() {}

  static String micros(long nanos) {
    if (nanos < 10_000) {
      return String.format(Locale.ROOT, "%.1f us", nanos / 1e3);
    }
    if (nanos < 1_000_000) {
      return String.format(Locale.ROOT, "%d us", Math.round(nanos / 1e3));
    }
    if (nanos < 1_000_000_000) {
      return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }
    return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
  }

  /** Whole seconds when it is some, else milliseconds: {@code 10 s}, {@code 250 ms}. */
  static String period(long nanos) {
    if (nanos >= 1_000_000_000 && nanos % 1_000_000_000 < 50_000_000) {
      return (nanos / 1_000_000_000) + " s";
    }
    if (nanos >= 1_000_000_000) {
      return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }
    return Math.round(nanos / 1e6) + " ms";
  }
}
