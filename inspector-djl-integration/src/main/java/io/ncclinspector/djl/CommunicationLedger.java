package io.ncclinspector.djl;

import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import java.util.Map;
import java.util.TreeMap;

/**
 * Adds up completed operations for three spans at once: the current batch window, the current
 * epoch and the whole training. Records come in on the inspector's listener thread; the training
 * thread takes the windows. One lock keeps the three spans consistent with each other.
 */
final class CommunicationLedger {
  private final Tally window = new Tally();
  private final Tally epoch = new Tally();
  private final Tally total = new Tally();

  synchronized void add(OperationRecord record) {
    window.add(record);
    epoch.add(record);
    total.add(record);
  }

  /** What completed since the previous call (or since the ledger was made), and starts a new window. */
  synchronized CommunicationFigures takeWindow() {
    return window.take();
  }

  /** What completed since the previous epoch was taken, and starts a new epoch. */
  synchronized CommunicationFigures takeEpoch() {
    return epoch.take();
  }

  /** Everything added so far. */
  synchronized CommunicationFigures total() {
    return total.figures();
  }

  /** Whether a record's time and bandwidths can be trusted and added up. */
  static boolean timed(OperationRecord r) {
    return r.timing().quarantine() == Quarantine.NONE && r.timing().executionNanos() > 0
        && Double.isFinite(r.transfer().busBandwidthGbs()) && Double.isFinite(r.transfer().algorithmBandwidthGbs());
  }

  /** Running sums of one span. Not thread-safe: the ledger's lock guards it. */
  private static final class Tally {
    private final Map<String, OperationTally> byOperation = new TreeMap<>();

    void add(OperationRecord r) {
      byOperation.computeIfAbsent(r.operation(), OperationTally::new).add(r);
    }

    CommunicationFigures take() {
      CommunicationFigures f = figures();
      byOperation.clear();
      return f;
    }

    CommunicationFigures figures() {
      if (byOperation.isEmpty()) {
        return CommunicationFigures.empty();
      }
      long operations = 0;
      long bytes = 0;
      long nanos = 0;
      long untimed = 0;
      Map<String, OperationFigures> figures = new TreeMap<>();
      for (OperationTally t : byOperation.values()) {
        OperationFigures f = t.figures();
        figures.put(f.operation(), f);
        operations += f.operations();
        bytes += f.bytes();
        nanos += f.executionNanos();
        untimed += f.untimedOperations();
      }
      return new CommunicationFigures(operations, bytes, nanos, untimed, figures);
    }
  }

  /**
   * Sums of one operation. Bandwidth times execution time is bytes moved (GB/s × ns = bytes), so
   * summing those products and dividing by the summed time gives the aggregate bandwidth.
   */
  private static final class OperationTally {
    private final String operation;
    private long operations;
    private long bytes;
    private long nanos;
    private long untimed;
    private double busBytes;
    private double algorithmBytes;

    OperationTally(String operation) {
      this.operation = operation;
    }

    void add(OperationRecord r) {
      operations++;
      bytes += r.transfer().messageBytes();
      if (timed(r)) {
        long t = r.timing().executionNanos();
        nanos += t;
        busBytes += r.transfer().busBandwidthGbs() * t;
        algorithmBytes += r.transfer().algorithmBandwidthGbs() * t;
      } else {
        untimed++;
      }
    }

    OperationFigures figures() {
      return new OperationFigures(operation, operations, bytes, nanos, untimed,
          nanos == 0 ? 0 : busBytes / nanos, nanos == 0 ? 0 : algorithmBytes / nanos);
    }
  }
}
