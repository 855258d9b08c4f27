package io.ncclinspector.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Phase names and the small ids the native core carries (16 bits, 0 = none). Names are interned
 * for the life of the JVM; there can be at most 65,535 of them.
 *
 * <p>A known name is looked up without a lock; a new name takes the class lock, so that two
 * threads naming new phases at once never get the same id (the id is the count of names so far).
 */
public final class PhaseNames {
  private static final int MAX = 0xffff;
  private static final ConcurrentHashMap<String, Integer> IDS = new ConcurrentHashMap<>();
  private static final AtomicReferenceArray<String> NAMES = new AtomicReferenceArray<>(MAX + 1);
  private static int given; /* guarded by PhaseNames.class */

  private PhaseNames() {}

  public static int idOf(String name) {
    Integer id = IDS.get(name);
    return id != null ? id : newId(name);
  }

  private static synchronized int newId(String name) {
    Integer known = IDS.get(name);
    if (known != null) {
      return known;
    }
    if (given >= MAX) {
      throw new IllegalStateException("more than " + MAX + " distinct phase names");
    }
    int id = ++given;
    NAMES.set(id, name); /* before the id is published: whoever sees the id finds the name */
    IDS.put(name, id);
    return id;
  }

  /** The name of an id, or null for 0 and for ids never given. */
  public static String nameOf(int id) {
    return id <= 0 || id > MAX ? null : NAMES.get(id);
  }
}
