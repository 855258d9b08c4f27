package io.ncclinspector.export;

import io.ncclinspector.OperationRecord;
import io.ncclinspector.Timing;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The per-class aggregation the metric exporters (Prometheus textfiles, Micrometer,
 * OpenTelemetry) share: which records they time ({@link #recordable}), the {@link ClassKey} of a
 * record with its message-size label, and the cardinality cap: at most {@code maxClasses} classes
 * get a value (a Prometheus series, Micrometer meters, OpenTelemetry attributes); a record of a
 * further class gets none and is counted in {@link #overflow()}.
 *
 * <p>In {@code io.ncclinspector.export}, not {@code io.ncclinspector.spi}: the SPI is what an
 * exporter implements and the inspector calls; this is a helper an exporter may use, and one that
 * needs none of it implements the SPI just the same.
 *
 * <p>{@link #classOf} and {@link #keyOf} are called from one thread at a time (the exporter's or
 * listener's thread); with {@link #concurrent} the classes may also be read and cleared from
 * others.
 *
 * @param <C> how the exporter identifies a communicator (see {@link ClassKey})
 * @param <V> what the exporter keeps per class
 */
public final class OperationClasses<C, V> {
  private final int maxClasses;
  private final Map<ClassKey<C>, V> classes;
  private final Map<ClassKey<C>, V> view;
  private final MessageSizeLabel sizes = new MessageSizeLabel();
  private final AtomicLong overflow = new AtomicLong();

  private OperationClasses(int maxClasses, Map<ClassKey<C>, V> classes) {
    if (maxClasses < 1) {
      throw new IllegalArgumentException("maxClasses must be positive: " + maxClasses);
    }
    this.maxClasses = maxClasses;
    this.classes = classes;
    this.view = Collections.unmodifiableMap(classes);
  }

  /** Classes kept in the order they first appeared, for one thread. */
  public static <C, V> OperationClasses<C, V> ordered(int maxClasses) {
    return new OperationClasses<>(maxClasses, new LinkedHashMap<>());
  }

  /** Classes that other threads may read or {@link #clear} while one thread records. */
  public static <C, V> OperationClasses<C, V> concurrent(int maxClasses) {
    return new OperationClasses<>(maxClasses, new ConcurrentHashMap<>());
  }

  /**
   * Whether the exporters put a record's time and bandwidth into their figures: only when its time
   * is one the inspector vouches for ({@link Timing#trusted()}). Not a quarantined record (counted
   * by the inspector's quarantine counters), and not an untimed one (a call NCCL gave no operation
   * event, {@link io.ncclinspector.RecordFlag#NOT_PROFILED_BY_NCCL}, counted by the call ledger's
   * counters): a time of 0 in a latency histogram would be a wrong number, not a missing one.
   */
  public static boolean recordable(OperationRecord r) {
    return r.timing().trusted();
  }

  /** A record's class, its message size labelled as the reference does. */
  public ClassKey<C> keyOf(OperationRecord r, C communicator) {
    return ClassKey.of(r, communicator, sizes.of(r.transfer().messageBytes()));
  }

  /**
   * The value of a class, made by {@code create} the first time; null (and counted in
   * {@link #overflow()}) when the class is new and {@code maxClasses} classes exist already.
   */
  public V classOf(ClassKey<C> key, Function<? super ClassKey<C>, ? extends V> create) {
    V v = classes.get(key);
    if (v != null) {
      return v;
    }
    if (classes.size() >= maxClasses) {
      overflow.incrementAndGet();
      return null;
    }
    v = create.apply(key);
    classes.put(key, v);
    return v;
  }

  /** {@link #classOf(ClassKey, Function)} of the record's class. */
  public V classOf(OperationRecord r, C communicator, Function<? super ClassKey<C>, ? extends V> create) {
    return classOf(keyOf(r, communicator), create);
  }

  /** The classes and their values, in the order they appeared for {@link #ordered}; read-only. */
  public Map<ClassKey<C>, V> classes() {
    return view;
  }

  /** Classes that have a value. */
  public int size() {
    return classes.size();
  }

  /** The most classes that get a value. */
  public int maxClasses() {
    return maxClasses;
  }

  /** Records left out because their class would have been past the cap, since creation. */
  public long overflow() {
    return overflow.get();
  }

  /** Forgets every class (the overflow count stays). */
  public void clear() {
    classes.clear();
  }
}
