package io.ncclinspector.report.ingest;

import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns the paths DuckDB reports (the absolute paths it was given) back into the names the
 * report uses, in SQL. A per-file CASE would be evaluated for every row against thousands of
 * files; instead, files are grouped under path-prefix rules ({@code /abs/logs/} →
 * {@code logs/}), which are few (about one per input argument), and only files no rule maps
 * correctly get a rule of their own.
 */
final class DisplayNames {
  /** Replace {@code pathPrefix} at the start of a path with {@code displayPrefix}. */
  record Rule(String pathPrefix, String displayPrefix) {
    String apply(String path) {
      return path.startsWith(pathPrefix)
          ? displayPrefix + path.substring(pathPrefix.length()) : null;
    }
  }

  private final List<Rule> prefixRules;
  private final Map<String, String> exact;

  private DisplayNames(List<Rule> prefixRules, Map<String, String> exact) {
    this.prefixRules = prefixRules;
    this.exact = exact;
  }

  /** Rules for these (path, display name) pairs. */
  static DisplayNames of(Map<String, String> displayByPath) {
    List<Rule> rules = new ArrayList<>();
    for (Map.Entry<String, String> e : displayByPath.entrySet()) {
      Rule r = commonSuffixRule(e.getKey(), e.getValue());
      if (!rules.contains(r)) {
        rules.add(r);
      }
    }
    // Longest path prefix first, so that a deeper argument's rule wins over its parent's.
    rules.sort(Comparator.comparingInt((Rule r) -> r.pathPrefix().length()).reversed());
    Map<String, String> exact = new LinkedHashMap<>();
    List<Rule> used = new ArrayList<>();
    for (Map.Entry<String, String> e : displayByPath.entrySet()) {
      Rule first = null;
      for (Rule r : rules) {
        if (r.apply(e.getKey()) != null) {
          first = r;
          break;
        }
      }
      if (first != null && e.getValue().equals(first.apply(e.getKey()))) {
        if (!used.contains(first)) {
          used.add(first);
        }
      } else {
        exact.put(e.getKey(), e.getValue());
      }
    }
    used.sort(Comparator.comparingInt((Rule r) -> r.pathPrefix().length()).reversed());
    return new DisplayNames(used, exact);
  }

  /** The split of path and name after their longest common ending that starts a component. */
  private static Rule commonSuffixRule(String path, String display) {
    int i = path.length();
    int j = display.length();
    while (i > 0 && j > 0 && path.charAt(i - 1) == display.charAt(j - 1)) {
      i--;
      j--;
    }
    // Back up to a component boundary so that prefixes end with a separator (or are empty).
    while (i < path.length() && i > 0 && path.charAt(i - 1) != '/') {
      i++;
      j++;
    }
    return new Rule(path.substring(0, i), display.substring(0, j));
  }

  /** What the SQL expression computes for a path (used by tests). */
  String apply(String path) {
    String e = exact.get(path);
    if (e != null) {
      return e;
    }
    for (Rule r : prefixRules) {
      String d = r.apply(path);
      if (d != null) {
        return d;
      }
    }
    return path;
  }

  int ruleCount() {
    return prefixRules.size() + exact.size();
  }

  /** A SQL expression mapping the path column to the display name. */
  String sql(String column) {
    boolean identity = exact.isEmpty() && prefixRules.stream()
        .allMatch(r -> r.pathPrefix().equals(r.displayPrefix()));
    if (identity) {
      return column;
    }
    StringBuilder b = new StringBuilder("CASE");
    for (Map.Entry<String, String> e : exact.entrySet()) {
      b.append(" WHEN ").append(column).append(" = ").append(DuckDbEngine.literal(e.getKey()))
          .append(" THEN ").append(DuckDbEngine.literal(e.getValue()));
    }
    for (Rule r : prefixRules) {
      b.append(" WHEN starts_with(").append(column).append(", ")
          .append(DuckDbEngine.literal(r.pathPrefix())).append(") THEN ")
          .append(DuckDbEngine.literal(r.displayPrefix())).append(" || substr(").append(column)
          .append(", length(").append(DuckDbEngine.literal(r.pathPrefix())).append(") + 1)");
    }
    return b.append(" ELSE ").append(column).append(" END").toString();
  }
}
