package io.ncclinspector.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Phase names and the small ids the native core carries (16 bits, 0 = none). Names are interned
 * for the life of the JVM; there can be at most 65,535 of them.
 */
public final class PhaseNames {
  private static final int MAX = 0xffff;
  private static final ConcurrentHashMap<String, Integer> IDS = new ConcurrentHashMap<>();
  private static final AtomicReferenceArray<String> NAMES = new AtomicReferenceArray<>(MAX + 1);

  private PhaseNames() {}

  public static int idOf(String name) {
    return IDS.computeIfAbsent(name, n -> {
      int id = IDS.size() + 1;
      if (id > MAX) {
        throw new IllegalStateException("more than " + MAX + " distinct phase names");
      }
      NAMES.set(id, n);
      return id;
    });
  }

  /** The name of an id, or null for 0 and for ids never given. */
  public static String nameOf(int id) {
    return id <= 0 || id > MAX ? null : NAMES.get(id);
  }
}
