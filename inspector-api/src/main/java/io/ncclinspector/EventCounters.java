package io.ncclinspector;

import java.util.Map;

/**
 * Everything the inspector did not turn into a normal record, by reason, since it was enabled.
 *
 * @param drops events or records that were lost (ring full, stale handle, below minimum size, ...)
 * @param notes outcomes that lost nothing but are worth knowing (operations closed early, ...)
 */
public record EventCounters(Map<String, Long> drops, Map<String, Long> notes) {

  public EventCounters {
    drops = Map.copyOf(drops);
    notes = Map.copyOf(notes);
  }

  /** A counter by name (drop or note), 0 if it has no count. */
  public long get(String name) {
    return drops.getOrDefault(name, notes.getOrDefault(name, 0L));
  }

  /** Sum of all drops. */
  public long totalDrops() {
    return drops.values().stream().mapToLong(Long::longValue).sum();
  }
}
