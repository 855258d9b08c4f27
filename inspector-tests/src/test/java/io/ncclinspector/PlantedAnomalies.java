package io.ncclinspector;

import io.ncclinspector.TracePlanting.Target;
import io.ncclinspector.internal.SlowCollectiveDetector;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The evaluation of slow-collective detection on one recorded trace: the trace is replayed as
 * recorded, then once per scale with anomalies planted at chosen points, each replay going
 * through the whole inspector (native core, records, analysis thread, a listener).
 *
 * <p>Where anomalies go, per communicator, with records in the order they completed:
 * <ul>
 *   <li>{@link Point#WARM_UP}: the first class of each operation, at its operation number
 *       {@code warmupSamples}: the first that the class's own history judges;
 *   <li>{@link Point#SIZE_CHANGE} / {@link Point#PROTOCOL_CHANGE}: a class seen for the first
 *       time whose operation's previous record had another size bucket / another protocol or
 *       algorithm, at its operation number {@code warmupSamples} as well;
 *   <li>{@link Point#FIRST_AFTER_CHANGE}: the very first operation of such a class, when a class of
 *       the same operation is established by then: it can only be judged against that one.
 * </ul>
 * The planted execution time is {@code scale} × the 99th percentile (nearest rank) of the
 * class's GPU-timed records in the unplanted replay; a point whose operation already took that
 * long is left out at that scale.
 */
public final class PlantedAnomalies {
  public enum Point { WARM_UP, SIZE_CHANGE, PROTOCOL_CHANGE, FIRST_AFTER_CHANGE }

  /** A planted anomaly: where, what kind of point, the class's p99. */
  public record Planting(Target target, Point point, long p99Nanos, long originalNanos) {}

  /** What one scale gave: planted, reported (by point), and ordinary operations reported. */
  public record ScaleResult(double scale, Map<Point, Integer> planted, Map<Point, Integer> reported,
      List<Target> missed, int ordinaryReported, int ordinary, Map<SlowCollectiveEvent.Kind, Integer> plantedKinds) {
    public int plantedTotal() {
      return planted.values().stream().mapToInt(Integer::intValue).sum();
    }

    public int reportedTotal() {
      return reported.values().stream().mapToInt(Integer::intValue).sum();
    }
  }

  /** Everything about one trace; {@code judged}: records the detector judges (collectives and P2P). */
  public record Result(Path trace, int judged, int ordinaryReported, List<Planting> plantings,
      List<ScaleResult> scales) {
    public double ordinaryRate() {
      return judged == 0 ? 0 : (double) ordinaryReported / judged;
    }
  }

  private PlantedAnomalies() {}

  public static Result evaluate(Path trace, SlowCollectiveDetection detection, double[] scales, Path workDir)
      throws IOException {
    ListenedReplay base = ListenedReplay.of(trace, detection, workDir.resolve("base"));
    List<CollectiveRecord> judged = judged(base.records());
    List<Planting> plantings = plantings(judged, detection.warmupSamples());
    List<ScaleResult> results = new ArrayList<>();
    for (double scale : scales) {
      Map<Target, Long> exec = new LinkedHashMap<>();
      Map<Target, Point> pointOf = new HashMap<>();
      for (Planting p : plantings) {
        long wanted = Math.round(scale * p.p99Nanos());
        if (wanted > p.originalNanos()) {
          exec.put(p.target(), wanted);
          pointOf.put(p.target(), p.point());
        }
      }
      Map<Point, Integer> planted = new EnumMap<>(Point.class);
      Map<Point, Integer> reported = new EnumMap<>(Point.class);
      List<Target> missed = new ArrayList<>();
      Map<SlowCollectiveEvent.Kind, Integer> kinds = new EnumMap<>(SlowCollectiveEvent.Kind.class);
      int ordinaryReported;
      int ordinary;
      if (exec.isEmpty()) {
        ordinaryReported = base.slow().size();
        ordinary = judgedCount(base.records());
      } else {
        Path copy = TracePlanting.plant(trace, exec, workDir.resolve("planted-" + scale + ".jsonl.gz"));
        ListenedReplay run = ListenedReplay.of(copy, detection, workDir.resolve("run-" + scale));
        Set<Target> seen = new HashSet<>();
        ordinaryReported = 0;
        for (SlowCollectiveEvent e : run.slow()) {
          Target t = targetOf(e.record());
          if (exec.containsKey(t)) {
            seen.add(t);
            kinds.merge(e.kind(), 1, Integer::sum);
          } else {
            ordinaryReported++;
          }
        }
        for (Target t : exec.keySet()) {
          planted.merge(pointOf.get(t), 1, Integer::sum);
          if (seen.contains(t)) {
            reported.merge(pointOf.get(t), 1, Integer::sum);
          } else {
            missed.add(t);
          }
        }
        ordinary = judgedCount(run.records()) - exec.size();
      }
      results.add(new ScaleResult(scale, planted, reported, missed, ordinaryReported, ordinary, kinds));
    }
    return new Result(trace, judgedCount(base.records()), base.slow().size(), plantings, results);
  }

  private static int judgedCount(List<OperationRecord> records) {
    return (int) records.stream().filter(SlowCollectiveDetector::judgeable).count();
  }

  static Target targetOf(OperationRecord r) {
    return new Target(r.communicator().id(), r.operation(), r.sequence());
  }

  /** The GPU-timed collectives the detector judges, in the order they completed. */
  static List<CollectiveRecord> judged(List<OperationRecord> records) {
    List<CollectiveRecord> out = new ArrayList<>();
    for (OperationRecord r : records) {
      if (r instanceof CollectiveRecord c && SlowCollectiveDetector.judgeable(c)) {
        out.add(c);
      }
    }
    return out;
  }

  /** The planting points of a replay's judged collectives (see the class comment). */
  static List<Planting> plantings(List<CollectiveRecord> judged, int warmup) {
    Map<Long, List<CollectiveRecord>> byComm = new LinkedHashMap<>();
    for (CollectiveRecord r : judged) {
      byComm.computeIfAbsent(r.communicator().serial(), k -> new ArrayList<>()).add(r);
    }
    List<Planting> out = new ArrayList<>();
    for (List<CollectiveRecord> stream : byComm.values()) {
      Map<OperationClass, List<CollectiveRecord>> byClass = new LinkedHashMap<>();
      for (CollectiveRecord r : stream) {
        byClass.computeIfAbsent(OperationClass.of(r), k -> new ArrayList<>()).add(r);
      }
      Map<OperationClass, Integer> seen = new HashMap<>();
      Map<String, CollectiveRecord> lastOfOperation = new HashMap<>();
      for (CollectiveRecord r : stream) {
        OperationClass cls = OperationClass.of(r);
        if (!seen.containsKey(cls)) {
          CollectiveRecord previous = lastOfOperation.get(r.operation());
          boolean established = seen.entrySet().stream()
              .anyMatch(e -> e.getKey().operation().equals(r.operation()) && e.getValue() >= warmup);
          Point point = previous == null ? Point.WARM_UP
              : !previous.algorithm().protocol().equals(r.algorithm().protocol())
                  || !previous.algorithm().name().equals(r.algorithm().name())
                  ? Point.PROTOCOL_CHANGE : Point.SIZE_CHANGE;
          List<CollectiveRecord> members = byClass.get(cls);
          if (warmup < members.size()) {
            CollectiveRecord at = members.get(warmup);
            out.add(new Planting(targetOf(at), point, p99(members), at.timing().executionNanos()));
          }
          if (point != Point.WARM_UP && established) {
            out.add(new Planting(targetOf(r), Point.FIRST_AFTER_CHANGE, p99(members), r.timing().executionNanos()));
          }
        }
        seen.merge(cls, 1, Integer::sum);
        lastOfOperation.put(r.operation(), r);
      }
    }
    return out;
  }

  /** Nearest-rank 99th percentile of execution times. */
  static long p99(List<? extends OperationRecord> records) {
    long[] x = records.stream().mapToLong(r -> r.timing().executionNanos()).sorted().toArray();
    return x[(int) Math.ceil(0.99 * x.length) - 1];
  }
}
