package io.ncclinspector.examples.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CallCounterTest {
  @Test
  void predictsNcclAndReferenceNumbers() {
    CallCounter c = new CallCounter(2);
    CallCounter.CallId a0 = c.next(Operation.ALL_REDUCE);
    CallCounter.CallId g0 = c.next(Operation.ALL_GATHER);
    CallCounter.CallId a1 = c.next(Operation.ALL_REDUCE);
    CallCounter.CallId x = c.next(Operation.ALL_TO_ALL);
    CallCounter.CallId s = c.next(Operation.SEND_RECV);
    CallCounter.CallId a2 = c.next(Operation.ALL_REDUCE);
    assertEquals(0, a0.call());
    assertEquals(5, a2.call());
    /* NCCL counts collectives per function */
    assertEquals(0, a0.collSequence());
    assertEquals(0, g0.collSequence());
    assertEquals(1, a1.collSequence());
    assertEquals(2, a2.collSequence());
    /* the reference numbers P2P tasks from 1: AlltoAll = a Send and a Recv per rank, own rank included */
    assertEquals(-1, x.collSequence());
    assertEquals(1, x.p2pFirstSn());
    assertEquals(4, x.p2pCount());
    assertEquals(5, s.p2pFirstSn());
    assertEquals(2, s.p2pCount());
    /* "after" starts with the call after the first AlltoAll */
    assertFalse(x.afterSelfP2p());
    assertTrue(s.afterSelfP2p());
    assertTrue(a2.afterSelfP2p());
    assertFalse(a1.afterSelfP2p());
    assertEquals(6, c.calls());
    assertEquals(4 + 4 + 2, c.expectedRecords());
  }
}
