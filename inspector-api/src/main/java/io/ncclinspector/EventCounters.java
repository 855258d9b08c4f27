package io.ncclinspector;

import java.util.Map;

/**
 * Everything the inspector did not turn into a normal record, by reason, since it was enabled.
 *
 * @param drops events or records that were lost (ring full, stale handle, below minimum size, ...)
 * @param notes outcomes that lost nothing but are worth knowing (operations closed early, ...)
 * @param quarantined records delivered apart because their GPU timestamps were unusable, by reason
 */
public record EventCounters(Map<String, Long> drops, Map<String, Long> notes, Map<String, Long> quarantined) {

  public EventCounters {
    drops = Map.copyOf(drops);
    notes = Map.copyOf(notes);
    quarantined = Map.copyOf(quarantined);
  }

  /** No counts at all (an inactive inspector). */
  public static EventCounters empty() {
    return new EventCounters(Map.of(), Map.of(), Map.of());
  }

  /** A counter by name (of any kind), 0 if it has no count. */
  public long get(String name) {
    return drops.getOrDefault(name, notes.getOrDefault(name, quarantined.getOrDefault(name, 0L)));
  }

  /** Sum of all drops. */
  public long totalDrops() {
    return drops.values().stream().mapToLong(Long::longValue).sum();
  }
}
