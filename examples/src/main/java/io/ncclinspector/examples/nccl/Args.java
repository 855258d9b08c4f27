package io.ncclinspector.examples.nccl;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Command-line options of the GPU programs: {@code --name value} pairs and bare {@code --flag}s.
 * Every option a program reads must be declared by reading it; {@link #rejectUnknown()} then
 * fails on anything left over, so that a misspelt option in a driver script stops the run at once
 * (and in a {@code --dry-run} on a machine without GPUs) instead of silently using a default.
 */
final class Args {
  private final Map<String, String> values = new LinkedHashMap<>();
  private final Set<String> flags = new LinkedHashSet<>();
  private final Set<String> read = new LinkedHashSet<>();

  private Args() {}

  /**
   * Parses {@code args}; {@code flagNames} are the options that take no value (everything else
   * takes exactly one).
   */
  static Args parse(String[] args, String... flagNames) {
    Set<String> flagSet = Set.of(flagNames);
    Args a = new Args();
    for (int i = 0; i < args.length; i++) {
      String s = args[i];
      if (!s.startsWith("--") || s.length() < 3) {
        throw new IllegalArgumentException("expected --option, got '" + s + "'");
      }
      String name = s.substring(2);
      if (flagSet.contains(name)) {
        a.flags.add(name);
      } else {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("--" + name + " needs a value");
        }
        String previous = a.values.put(name, args[++i]);
        if (previous != null) {
          throw new IllegalArgumentException("--" + name + " given twice");
        }
      }
    }
    return a;
  }

  boolean flag(String name) {
    read.add(name);
    return flags.contains(name);
  }

  String string(String name, String fallback) {
    read.add(name);
    return values.getOrDefault(name, fallback);
  }

  String required(String name) {
    read.add(name);
    String v = values.get(name);
    if (v == null) {
      throw new IllegalArgumentException("missing --" + name);
    }
    return v;
  }

  int integer(String name, int fallback) {
    String v = string(name, null);
    return v == null ? fallback : parseInt(name, v);
  }

  long longValue(String name, long fallback) {
    String v = string(name, null);
    if (v == null) {
      return fallback;
    }
    try {
      return Sizes.parse(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + ": not a number: '" + v + "'");
    }
  }

  double decimal(String name, double fallback) {
    String v = string(name, null);
    if (v == null) {
      return fallback;
    }
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + ": not a number: '" + v + "'");
    }
  }

  /** A comma-separated list of sizes ({@link Sizes#parse}); empty if absent. */
  List<Long> sizes(String name, String fallback) {
    String v = string(name, fallback);
    List<Long> out = new ArrayList<>();
    if (v == null || v.isBlank()) {
      return out;
    }
    for (String s : v.split(",")) {
      try {
        out.add(Sizes.parse(s.trim()));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--" + name + ": not a size: '" + s + "'");
      }
    }
    return out;
  }

  /** Fails on options given but never read by the program. */
  void rejectUnknown() {
    List<String> unknown = new ArrayList<>();
    for (String k : values.keySet()) {
      if (!read.contains(k)) {
        unknown.add("--" + k);
      }
    }
    for (String k : flags) {
      if (!read.contains(k)) {
        unknown.add("--" + k);
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("unknown option(s) " + unknown + "; known: " + Arrays.toString(read.toArray()));
    }
  }

  private static int parseInt(String name, String v) {
    try {
      return Math.toIntExact(Sizes.parse(v));
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException("--" + name + ": not an int: '" + v + "'");
    }
  }
}
