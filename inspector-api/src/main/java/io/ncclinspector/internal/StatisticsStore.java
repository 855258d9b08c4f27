package io.ncclinspector.internal;

import io.ncclinspector.ClassStatistics;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.CommunicatorSnapshot;
import io.ncclinspector.Distribution;
import io.ncclinspector.OperationClass;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.PhaseStatistics;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Statistics for snapshots, per communicator and class of operation. One writer (the analysis
 * thread) records into single-writer histograms ({@link LogLinearHistogram}: 1% resolution,
 * wait-free); a snapshot, from any thread, reads them directly. Destroyed communicators are kept
 * for snapshots, the oldest forgotten beyond {@value #MAX_DESTROYED_KEPT}.
 */
public final class StatisticsStore {
  private static final int MAX_DESTROYED_KEPT = 256;

  private final int lastRecordsKept;
  private final Map<Long, CommStats> communicators = new ConcurrentHashMap<>();
  /* Analysis thread only (communicator()); an ArrayDeque, whose size() is constant-time, unlike a
     ConcurrentLinkedDeque's, which walked the whole deque at every destroyed communicator. */
  private final ArrayDeque<Long> destroyedOrder = new ArrayDeque<>();

  public StatisticsStore(int lastRecordsKept) {
    this.lastRecordsKept = lastRecordsKept;
  }

  /** Analysis thread only. */
  public void record(OperationRecord r) {
    record(r, OperationClass.of(r));
  }

  /** Analysis thread only: a record and its class. */
  public void record(OperationRecord r, OperationClass operationClass) {
    long serial = r.communicator().serial();
    CommStats c = lastStats;
    if (c == null || lastSerial != serial) {
      c = communicators.computeIfAbsent(serial, s -> new CommStats(r.communicator()));
      lastStats = c;
      lastSerial = serial;
    }
    c.record(r, operationClass, lastRecordsKept);
  }

  /* The communicator of the previous record (consecutive records mostly share it); analysis thread only. */
  private CommStats lastStats;
  private long lastSerial;

  /** Analysis thread only: a communicator created ({@code live}) or destroyed. */
  public void communicator(CommunicatorInfo info, boolean live) {
    CommStats c = communicators.computeIfAbsent(info.serial(), s -> new CommStats(info));
    c.info = info;
    c.live = live;
    if (!live) {
      destroyedOrder.addLast(info.serial());
      while (destroyedOrder.size() > MAX_DESTROYED_KEPT) {
        Long oldest = destroyedOrder.pollFirst();
        if (oldest != null) {
          communicators.remove(oldest);
          if (lastStats != null && lastSerial == oldest) {
            lastStats = null;
          }
        }
      }
    }
  }

  /** Any thread. */
  public List<CommunicatorSnapshot> snapshot() {
    List<CommunicatorSnapshot> out = new ArrayList<>();
    for (CommStats c : communicators.values()) {
      out.add(c.snapshot());
    }
    out.sort(Comparator.comparing((CommunicatorSnapshot s) -> !s.live())
        .thenComparingLong(s -> s.communicator().serial()));
    return out;
  }

  private static final class CommStats {
    volatile CommunicatorInfo info;
    volatile boolean live = true;
    volatile long lastStep = -1;
    final LongAdder operations = new LongAdder();
    final LongAdder bytes = new LongAdder();
    final Map<OperationClass, ClassStats> classes = new ConcurrentHashMap<>();
    final Map<String, PhaseStats> phases = new ConcurrentHashMap<>();
    final ArrayDeque<OperationRecord> last = new ArrayDeque<>();

    CommStats(CommunicatorInfo info) {
      this.info = info;
    }

    void record(OperationRecord r, OperationClass operationClass, int keep) {
      info = r.communicator();
      operations.increment();
      bytes.add(r.transfer().messageBytes());
      if (r.tags().step() > lastStep) {
        lastStep = r.tags().step(); /* the highest: records complete out of enqueue order */
      }
      classes.computeIfAbsent(operationClass, k -> new ClassStats(k)).record(r);
      String phase = r.tags().phase();
      if (phase != null) {
        PhaseStats p = phases.computeIfAbsent(phase, k -> new PhaseStats());
        p.count.increment();
        p.bytes.add(r.transfer().messageBytes());
        if (r.timing().trusted()) {
          p.nanos.add(r.timing().executionNanos());
        }
      }
      if (keep > 0) {
        synchronized (last) {
          if (last.size() == keep) {
            last.removeFirst();
          }
          last.addLast(r);
        }
      }
    }

    CommunicatorSnapshot snapshot() {
      List<ClassStatistics> cls = new ArrayList<>();
      for (ClassStats s : classes.values()) {
        cls.add(s.snapshot());
      }
      cls.sort(Comparator.comparing((ClassStatistics s) -> s.operationClass().operation())
          .thenComparingLong(s -> s.operationClass().sizeBucketBytes())
          .thenComparing(s -> s.operationClass().algorithm(), Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparing(s -> s.operationClass().protocol(), Comparator.nullsFirst(Comparator.naturalOrder())));
      List<PhaseStatistics> ph = new ArrayList<>();
      phases.forEach((name, p) -> ph.add(new PhaseStatistics(name, p.count.sum(), p.bytes.sum(), p.nanos.sum())));
      ph.sort(Comparator.comparing(PhaseStatistics::phase));
      List<OperationRecord> recent;
      synchronized (last) {
        recent = List.copyOf(last);
      }
      return new CommunicatorSnapshot(info, live, operations.sum(), bytes.sum(), cls, ph, lastStep, recent);
    }
  }

  private static final class PhaseStats {
    final LongAdder count = new LongAdder();
    final LongAdder bytes = new LongAdder();
    final LongAdder nanos = new LongAdder();
  }

  private static final class ClassStats {
    final OperationClass key;
    final LongAdder count = new LongAdder();
    final LongAdder bytes = new LongAdder();
    final LogLinearHistogram exec = new LogLinearHistogram();
    final LogLinearHistogram busMbps = new LogLinearHistogram();
    /* Guarded by this: the last snapshot, kept while nothing new was recorded. */
    long countAtLastSnapshot = -1;
    ClassStatistics lastSnapshot;

    ClassStats(OperationClass key) {
      this.key = key;
    }

    void record(OperationRecord r) {
      /* A quarantined record's GPU timing is not trusted (and an untimed one has none): it counts
         as an operation, not in the distributions. */
      if (r.timing().trusted()) {
        exec.record(r.timing().executionNanos());
        busMbps.record(Math.round(r.transfer().busBandwidthGbs() * 1000.0));
      }
      bytes.add(r.transfer().messageBytes());
      /* Counted last: a snapshot that sees the count also finds the values (see snapshot()). */
      count.increment();
    }

    synchronized ClassStatistics snapshot() {
      long n = count.sum();
      if (n == countAtLastSnapshot) {
        return lastSnapshot; /* nothing new: summing the buckets again would only cost time */
      }
      ClassStatistics snapshot = new ClassStatistics(key, n, bytes.sum(), exec.summary(1.0), busMbps.summary(1000.0));
      countAtLastSnapshot = n;
      lastSnapshot = snapshot;
      return snapshot;
    }
  }
}
