package io.ncclinspector;

import java.util.EnumMap;
import java.util.Map;

/**
 * Everything the inspector did not turn into a normal record, by reason, since it was enabled.
 * Drop and note names come from the native core (its counter list) and from the JVM side (see
 * {@link #JSON_BACKLOG_FULL} and the other constants), so they are an open set of names;
 * quarantine reasons are the closed set {@link Quarantine}.
 *
 * @param drops events or records that were lost (ring full, stale handle, below minimum size, ...)
 * @param notes outcomes that lost nothing but are worth knowing (operations closed early, ...)
 * @param quarantined records delivered apart because their GPU timestamps were unusable, by reason
 *     (every reason but {@link Quarantine#NONE}, 0 when none happened)
 */
public record EventCounters(Map<String, Long> drops, Map<String, Long> notes, Map<Quarantine, Long> quarantined) {
  /** Records the JSON writer thread could not take: it fell too far behind. */
  public static final String JSON_BACKLOG_FULL = "json_backlog_full";
  /** Records that never reached the JSON file (see docs/failure-behaviour.md). */
  public static final String JSON_NOT_WRITTEN = "json_not_written";
  /** Records the statistics thread could not take: it fell too far behind. */
  public static final String ANALYSIS_BACKLOG_FULL = "analysis_backlog_full";
  /** Listeners abandoned at close or removal. */
  public static final String LISTENER_ABANDONED = "listener_abandoned";
  /** Recorded callbacks that never reached the recording file. */
  public static final String TRACE_NOT_WRITTEN = "trace_not_written";
  /**
   * Records without a GPU time, dropped by {@code requireKernelTiming} (counted by the native core,
   * and by the JVM for records that waited in vain for a CUPTI kernel record to time them).
   */
  public static final String NO_GPU_TIMING = "no_gpu_timing";
  /**
   * A note: phases opened with a new name after 65,534 distinct names (JVM-wide), whose
   * collectives are tagged {@code (other)} rather than by their name.
   */
  public static final String PHASE_OTHER = "phase_other";

  public EventCounters {
    drops = Map.copyOf(drops);
    notes = Map.copyOf(notes);
    EnumMap<Quarantine, Long> q = new EnumMap<>(Quarantine.class);
    for (Quarantine reason : Quarantine.values()) {
      if (reason != Quarantine.NONE) {
        q.put(reason, quarantined.getOrDefault(reason, 0L));
      }
    }
    quarantined = Map.copyOf(q);
  }

  /** No counts at all (an inactive inspector). */
  public static EventCounters empty() {
    return new EventCounters(Map.of(), Map.of(), Map.of());
  }

  /** A drop or note counter by name, or a quarantine reason by its JSON name; 0 if it has no count. */
  public long get(String name) {
    Long v = drops.get(name);
    if (v == null) {
      v = notes.get(name);
    }
    if (v == null) {
      for (Map.Entry<Quarantine, Long> e : quarantined.entrySet()) {
        if (e.getKey().jsonName().equals(name)) {
          v = e.getValue();
        }
      }
    }
    return v == null ? 0 : v;
  }

  /** Records quarantined for a reason. */
  public long get(Quarantine reason) {
    return quarantined.getOrDefault(reason, 0L);
  }

  /** Sum of all drops. */
  public long totalDrops() {
    return drops.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Sum of all quarantined records. */
  public long totalQuarantined() {
    return quarantined.values().stream().mapToLong(Long::longValue).sum();
  }
}
