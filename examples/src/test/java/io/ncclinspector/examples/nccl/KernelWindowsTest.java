package io.ncclinspector.examples.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class KernelWindowsTest {
  private static Cupti.Kernel k(String name, long start, long end) {
    return new Cupti.Kernel(name, start, end, 0, 7, 1, 0);
  }

  @Test
  void kernelsGoToTheWindowHoldingTheirStart() {
    List<KernelWindows.Window> w = List.of(new KernelWindows.Window(5, 1000, 2000),
        new KernelWindows.Window(3, 100, 500), new KernelWindows.Window(9, 3000, 4000));
    List<Cupti.Kernel> ks = List.of(
        k("ncclDevKernel_AllReduce", 1100, 1900),
        k("ncclDevKernel_SendRecv", 3100, 3300), k("ncclDevKernel_SendRecv", 3350, 3600),
        k("ncclDevKernel_AllGather", 150, 160),
        k("ncclDevKernel_Broadcast", 2500, 2600), /* between windows: a warm-up call */
        k("ncclDevKernel_Broadcast", 50, 60), /* before all windows */
        k("someOtherKernel", 1200, 1300)); /* not NCCL's: ignored */
    KernelWindows.Assignment a = KernelWindows.assign(w, ks);
    assertEquals(2, a.unattributed());
    assertEquals(1, a.of(5).count());
    assertEquals(800, a.of(5).busyNanos());
    assertEquals(2, a.of(9).count());
    assertEquals(200 + 250, a.of(9).busyNanos());
    assertEquals(500, a.of(9).spanNanos());
    assertEquals(3100, a.of(9).startNanos());
    assertEquals("ncclDevKernel_AllGather", a.of(3).firstName());
    assertEquals(0, a.of(42).count());
    assertNull(a.of(42).firstName());
  }

  @Test
  void aKernelCountsByItsMidpoint() {
    List<KernelWindows.Window> w = List.of(new KernelWindows.Window(1, 1000, 2000));
    /* a warm-up kernel that ended as the window opened, and the timed one, 5 ns "early" by CUPTI's clock */
    KernelWindows.Assignment a = KernelWindows.assign(w, List.of(k("ncclDevKernel_A", 990, 1005),
        k("ncclDevKernel_A", 995, 1500)));
    assertEquals(1, a.unattributed());
    assertEquals(1, a.of(1).count());
    assertEquals(505, a.of(1).busyNanos());
  }

  @Test
  void overlappingWindowsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> KernelWindows.assign(
        List.of(new KernelWindows.Window(1, 0, 100), new KernelWindows.Window(2, 50, 150)), List.of()));
  }
}
