package io.ncclinspector.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Phase names and the small ids the native core carries (16 bits, 0 = none). Names are interned
 * for the life of the JVM: the first 65,534 distinct names get ids of their own; every new name
 * after them gets the one id of the phase {@value #OTHER}, counted ({@link #folded()}, counter
 * {@code phase_other}) and said once in the log. Naming a phase never throws into the application.
 *
 * <p>A known name is looked up without a lock; a new name takes the class lock, so that two
 * threads naming new phases at once never get the same id (the id is the count of names so far).
 * Once the ids are used up, new names are folded without the lock.
 */
public final class PhaseNames {
  private static final Logger log = LoggerFactory.getLogger(PhaseNames.class);
  private static final int MAX = 0xffff;
  /** The id of the names past the first {@value #MAX} - 1. */
  public static final int OTHER_ID = MAX;
  /** The phase of the records of names past the first 65,534. */
  public static final String OTHER = "(other)";
  private static final ConcurrentHashMap<String, Integer> IDS = new ConcurrentHashMap<>();
  private static final AtomicReferenceArray<String> NAMES = new AtomicReferenceArray<>(MAX + 1);
  private static final AtomicLong FOLDED = new AtomicLong();
  private static int given; /* guarded by PhaseNames.class */
  /** Set (under the lock) once every id but {@link #OTHER_ID} is given; read without it. */
  private static volatile boolean exhausted;

  static {
    NAMES.set(OTHER_ID, OTHER);
  }

  private PhaseNames() {}

  public static int idOf(String name) {
    Integer id = IDS.get(name);
    if (id != null) {
      return id;
    }
    return exhausted ? fold(name) : newId(name);
  }

  private static synchronized int newId(String name) {
    Integer known = IDS.get(name);
    if (known != null) {
      return known;
    }
    if (given >= OTHER_ID - 1) {
      exhausted = true;
      return fold(name);
    }
    int id = ++given;
    NAMES.set(id, name); /* before the id is published: whoever sees the id finds the name */
    IDS.put(name, id);
    return id;
  }

  /** The id of {@link #OTHER} for a new name past the limit; the first one is said in the log. */
  private static int fold(String name) {
    if (FOLDED.getAndIncrement() == 0) {
      log.warn("NCCL Inspector: more than {} distinct phase names in this JVM; phase '{}' and every"
          + " new name after it tag their collectives '{}' (counter phase_other counts them)",
          OTHER_ID - 1, name, OTHER);
    }
    return OTHER_ID;
  }

  /** Phases opened with a new name after the ids were used up, tagged {@link #OTHER}. */
  public static long folded() {
    return FOLDED.get();
  }

  /** The name of an id, or null for 0 and for ids never given. */
  public static String nameOf(int id) {
    return id <= 0 || id > MAX ? null : NAMES.get(id);
  }
}
