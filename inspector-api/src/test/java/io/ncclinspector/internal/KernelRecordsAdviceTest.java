package io.ncclinspector.internal;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The close's advice where NCCL's channels left many operations untimed and kernel records were off. */
class KernelRecordsAdviceTest {
  @Test
  void aFewUntimedOperationsOrASmallShareGetNoAdvice() {
    assertNull(KernelRecordsAdvice.advice(0, 1_000, null));
    assertNull(KernelRecordsAdvice.advice(31, 40, null), "below 32");
    assertNull(KernelRecordsAdvice.advice(99, 1_000, null), "below a tenth");
  }

  @Test
  void manyUntimedOperationsAreCountedAndTheSettingNamed() {
    /* The MoE loop on NCCL 2.28.9 over sockets: 442 of 604 records without a GPU time. */
    String a = KernelRecordsAdvice.advice(442, 604, null);
    assertTrue(a.startsWith("442 of 604 operations got no GPU time"), a);
    assertTrue(a.contains("NCCL_INSPECTOR_KERNEL_RECORDS=1"), a);
    assertTrue(KernelRecordsAdvice.advice(100, 1_000, null) != null, "a tenth");
  }

  @Test
  void whereKernelRecordsWereRefusedTheReasonIsSaidInstead() {
    String a = KernelRecordsAdvice.advice(442, 604, "CUPTI is already loaded in the process (libcupti.so)");
    assertTrue(a.contains("were asked for but are not running: CUPTI is already loaded"), a);
    assertTrue(!a.contains("=1"), a);
  }
}
