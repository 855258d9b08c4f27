package io.ncclinspector.djl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.Quarantine;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommunicationLedgerTest {
  private static final double EPS = 1e-12;

  @Test
  void addsUpOperationsAndWeighsBandwidthByTime() {
    CommunicationLedger ledger = new CommunicationLedger();
    ledger.add(Records.collective("AllReduce", 1 << 20, 1_000_000, 10.0, 0));
    ledger.add(Records.collective("AllReduce", 1 << 20, 3_000_000, 20.0, 0));
    ledger.add(Records.send(4096, 500_000, 0));

    CommunicationFigures f = ledger.takeWindow();
    assertEquals(3, f.operations());
    assertEquals(2 * (1 << 20) + 4096, f.bytes());
    assertEquals(4_500_000, f.executionNanos());
    assertEquals(4.5, f.executionMillis(), EPS);
    assertEquals(0, f.untimedOperations());
    assertEquals(List.of("AllReduce", "Send"), List.copyOf(f.byOperation().keySet()));

    OperationFigures allReduce = f.byOperation().get("AllReduce");
    assertEquals(2, allReduce.operations());
    assertEquals(4_000_000, allReduce.executionNanos());
    /* 10 GB/s for 1 ms and 20 GB/s for 3 ms: 70 MB of bus traffic in 4 ms. */
    assertEquals(17.5, allReduce.busBandwidthGbs(), EPS);
    assertEquals(17.5, f.busBandwidthGbs("AllReduce").orElseThrow(), EPS);
    /* Algorithm bandwidth: 2 MiB in 4 ms. */
    assertEquals(2.0 * (1 << 20) / 4_000_000, allReduce.algorithmBandwidthGbs(), EPS);
    assertTrue(f.busBandwidthGbs("Broadcast").isEmpty());
  }

  @Test
  void untimedOperationsCountButDoNotTakeTimeOrBandwidth() {
    CommunicationLedger ledger = new CommunicationLedger();
    ledger.add(Records.collective("AllGather", 8192, 2_000_000, 4.0, 3));
    ledger.add(Records.collective("AllGather", 8192, 9_000_000, 1.0, 3, Quarantine.GPU_TIMESTAMP_REVERSED));
    ledger.add(Records.collective("AllGather", 8192, 0, 0.0, 3));

    CommunicationFigures f = ledger.takeWindow();
    OperationFigures g = f.byOperation().get("AllGather");
    assertEquals(3, g.operations());
    assertEquals(3 * 8192, g.bytes());
    assertEquals(2, g.untimedOperations());
    assertEquals(2_000_000, g.executionNanos());
    assertEquals(4.0, g.busBandwidthGbs(), EPS);
    assertEquals(2, f.untimedOperations());
  }

  @Test
  void windowsEpochsAndTotalsAreSeparateSpans() {
    CommunicationLedger ledger = new CommunicationLedger();
    ledger.add(Records.collective("AllReduce", 100, 1000, 1.0, 0));
    assertEquals(1, ledger.takeWindow().operations());
    assertSame(CommunicationFigures.empty(), ledger.takeWindow(), "a window starts empty");

    ledger.add(Records.collective("AllReduce", 100, 1000, 1.0, 1));
    ledger.add(Records.collective("Broadcast", 50, 1000, 1.0, 1));
    assertEquals(2, ledger.takeWindow().operations());
    assertEquals(3, ledger.takeEpoch().operations(), "the epoch spans both windows");
    assertTrue(ledger.takeEpoch().isEmpty());
    assertEquals(3, ledger.total().operations());
    assertEquals(250, ledger.total().bytes());
  }

  @Test
  void figuresAreImmutable() {
    CommunicationLedger ledger = new CommunicationLedger();
    ledger.add(Records.collective("AllReduce", 100, 1000, 1.0, 0));
    CommunicationFigures f = ledger.takeWindow();
    assertThrows(UnsupportedOperationException.class, () -> f.byOperation().clear());
    ledger.add(Records.collective("AllReduce", 100, 1000, 1.0, 0));
    assertEquals(1, f.operations(), "taken figures do not follow the ledger");
  }

  @Test
  void epochIndexMapsStepsToEpochs() {
    EpochIndex epochs = new EpochIndex();
    epochs.reset();
    epochs.startEpoch(4);
    epochs.startEpoch(4); /* an epoch without training batches */
    epochs.startEpoch(9);
    assertEquals(-1, epochs.epochOf(-1));
    assertEquals(0, epochs.epochOf(0));
    assertEquals(0, epochs.epochOf(3));
    assertEquals(2, epochs.epochOf(4));
    assertEquals(2, epochs.epochOf(8));
    assertEquals(3, epochs.epochOf(1000));
    epochs.reset();
    assertEquals(0, epochs.epochOf(1000));
  }
}
