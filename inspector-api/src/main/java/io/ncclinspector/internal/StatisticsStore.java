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
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * Statistics for snapshots, per communicator and class of operation. One writer (the analysis
 * thread) records each class's execution times and bus bandwidths under the class's lock, which a
 * snapshot, from any thread, takes to read them (HdrHistogram, 2 significant digits, once a class
 * has more than a few values). Destroyed communicators are kept for snapshots, the oldest forgotten
 * beyond {@value #MAX_DESTROYED_KEPT}.
 */
public final class StatisticsStore {
  private static final int MAX_DESTROYED_KEPT = 256;
  /** 1% resolution: plenty for monitoring, and an eighth of the buckets of 3 digits to fold. */
  private static final int SIGNIFICANT_DIGITS = 2;

  private final int lastRecordsKept;
  private final Map<Long, CommStats> communicators = new ConcurrentHashMap<>();
  private final ConcurrentLinkedDeque<Long> destroyedOrder = new ConcurrentLinkedDeque<>();

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

  /**
   * One class's figures. Its distributions start as the values themselves (a class seen a few
   * times, as in a short-lived communicator, costs two small arrays) and become two histograms
   * once it has more; the analysis thread records and snapshots read under the class's lock
   * (uncontended but for a snapshot of this class, and never on NCCL's threads).
   */
  private static final class ClassStats {
    /** Values kept as they are before the class gets its histograms. */
    private static final int FEW = 32;

    final OperationClass key;
    final LongAdder count = new LongAdder();
    final LongAdder bytes = new LongAdder();
    /* Guarded by this. */
    private long[] fewExec;
    private long[] fewBusMbps;
    private int few;
    private Histogram exec;
    private Histogram busMbps;
    private long countAtLastSnapshot = -1;
    private ClassStatistics lastSnapshot;

    ClassStats(OperationClass key) {
      this.key = key;
    }

    void record(OperationRecord r) {
      /* A quarantined record's GPU timing is not trusted (and an untimed one has none): it counts
         as an operation, not in the distributions. */
      if (r.timing().trusted()) {
        add(Math.max(r.timing().executionNanos(), 0),
            Math.max(Math.round(r.transfer().busBandwidthGbs() * 1000.0), 0));
      }
      bytes.add(r.transfer().messageBytes());
      /* Counted last: a snapshot that sees the count also finds the values (see snapshot()). */
      count.increment();
    }

    private synchronized void add(long execNanos, long busMbpsValue) {
      if (exec != null) {
        exec.recordValue(execNanos);
        busMbps.recordValue(busMbpsValue);
        return;
      }
      if (few < FEW) {
        if (fewExec == null) {
          fewExec = new long[FEW];
          fewBusMbps = new long[FEW];
        }
        fewExec[few] = execNanos;
        fewBusMbps[few] = busMbpsValue;
        few++;
        return;
      }
      exec = histogram(fewExec, few);
      busMbps = histogram(fewBusMbps, few);
      fewExec = null;
      fewBusMbps = null;
      exec.recordValue(execNanos);
      busMbps.recordValue(busMbpsValue);
    }

    private static Histogram histogram(long[] values, int n) {
      Histogram h = new Histogram(SIGNIFICANT_DIGITS);
      for (int i = 0; i < n; i++) {
        h.recordValue(values[i]);
      }
      return h;
    }

    synchronized ClassStatistics snapshot() {
      long n = count.sum();
      if (n == countAtLastSnapshot) {
        return lastSnapshot; /* nothing new: walking the histograms again would only cost time */
      }
      Histogram e = exec != null ? exec : histogram(fewExec, few);
      Histogram b = busMbps != null ? busMbps : histogram(fewBusMbps, few);
      ClassStatistics snapshot = new ClassStatistics(key, n, bytes.sum(), summary(e, 1.0), summary(b, 1000.0));
      countAtLastSnapshot = n;
      lastSnapshot = snapshot;
      return snapshot;
    }

    /** Min, mean, p50, p90, p99 and max in one pass over the recorded values. */
    private static Distribution summary(Histogram h, double unit) {
      long total = h.getTotalCount();
      if (total == 0) {
        return Distribution.EMPTY;
      }
      long at50 = (long) Math.ceil(total * 0.50);
      long at90 = (long) Math.ceil(total * 0.90);
      long at99 = (long) Math.ceil(total * 0.99);
      long seen = 0;
      double sum = 0;
      long p50 = 0, p90 = 0, p99 = 0;
      for (HistogramIterationValue v : h.recordedValues()) {
        long count = v.getCountAtValueIteratedTo();
        long value = h.highestEquivalentValue(v.getValueIteratedTo());
        sum += (double) h.medianEquivalentValue(v.getValueIteratedTo()) * count;
        long before = seen;
        seen += count;
        if (before < at50 && seen >= at50) {
          p50 = value;
        }
        if (before < at90 && seen >= at90) {
          p90 = value;
        }
        if (before < at99 && seen >= at99) {
          p99 = value;
        }
      }
      return new Distribution(total, h.getMinValue() / unit, sum / total / unit, p50 / unit, p90 / unit,
          p99 / unit, h.getMaxValue() / unit);
    }
  }
}
