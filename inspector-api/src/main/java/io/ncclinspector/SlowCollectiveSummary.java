package io.ncclinspector;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * The slow collectives of one class that the rate limit held back from listeners during one
 * interval ({@link SlowCollectiveDetection#maxEventsPerInterval()}), counted and summed up.
 *
 * @param communicator their communicator
 * @param operationClass their class
 * @param suppressed how many slow collectives were held back
 * @param period from the start of the rate-limit interval to this summary
 * @param worst the slowest of them
 * @param kinds how many of each kind (kinds with none are left out)
 */
public record SlowCollectiveSummary(CommunicatorInfo communicator, OperationClass operationClass, long suppressed,
    Duration period, SlowCollectiveEvent worst, Map<SlowCollectiveEvent.Kind, Long> kinds) implements InspectorEvent {

  public SlowCollectiveSummary {
    Objects.requireNonNull(communicator, "communicator");
    Objects.requireNonNull(operationClass, "operationClass");
    Objects.requireNonNull(period, "period");
    Objects.requireNonNull(worst, "worst");
    kinds = Map.copyOf(kinds);
  }

  @Override
  public void deliverTo(InspectorListener listener) {
    listener.slowCollectivesSuppressed(this);
  }

  /** One line for a log, e.g. {@code 37 more slow AllReduce RING/LL 64KiB ... in the last 10 s, worst 2.1 ms}. */
  public String describe() {
    StringJoiner byKind = new StringJoiner(", ", " (", ")");
    for (SlowCollectiveEvent.Kind k : SlowCollectiveEvent.Kind.values()) {
      Long n = kinds.get(k);
      if (n != null) {
        byKind.add(n + " " + k.label());
      }
    }
    return String.format(Locale.ROOT, "%d more slow %s on communicator %s in the last %s, worst %s%s", suppressed,
        operationClass.label(), communicator.idHex(), Durations.period(period.toNanos()),
        Durations.micros(worst.record().timing().executionNanos()), byKind);
  }
}
