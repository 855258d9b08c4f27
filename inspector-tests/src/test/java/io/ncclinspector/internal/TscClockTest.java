package io.ncclinspector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import io.ncclinspector.testsupport.LogCapture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The callbacks' CPU times come from the time-stamp counter exactly where the kernel's own monotonic
 * clock does (tsc_clock.h), judged here from what Linux shows (its clocksource, the CPU flags it
 * derives from CPUID), and from {@code clock_gettime} when the setting is off.
 */
class TscClockTest {
  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();

  @AfterEach
  void closeWhateverIsOpen() {
    NcclInspector.current().ifPresent(NcclInspector::close);
    ProfilerTableDriver.setenv("NCCL_PROFILER_PLUGIN", "");
  }

  private InspectorConfig.Builder config() {
    return InspectorConfig.builder().dumpDirectory(dir.resolve("out"));
  }

  /** x86-64 Linux whose clocksource is the TSC and whose CPU flags say it is invariant. */
  private static boolean kernelClockIsTheTsc() throws IOException {
    String arch = System.getProperty("os.arch");
    Path source = Path.of("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    Path cpuinfo = Path.of("/proc/cpuinfo");
    if (!("amd64".equals(arch) || "x86_64".equals(arch)) || !Files.isReadable(source) || !Files.isReadable(cpuinfo)) {
      return false;
    }
    String flags = Files.readAllLines(cpuinfo).stream().filter(l -> l.startsWith("flags")).findFirst().orElse("");
    List<String> set = Arrays.asList(flags.substring(flags.indexOf(':') + 1).trim().split("\\s+"));
    return Files.readString(source).trim().equals("tsc") && set.contains("constant_tsc") && set.contains("nonstop_tsc");
  }

  @Test
  void theCounterIsUsedWhereTheKernelUsesItAndNotWhenSwitchedOff() throws IOException {
    logs.expect("WARN", "no NCCL communicator reached the inspector");
    boolean expected = kernelClockIsTheTsc();
    try (NcclInspector inspector = NcclInspector.enable(config().build())) {
      assertEquals(expected, NativeCore.get().tscClockActive(),
          "time-stamp counter in use, where the kernel's clock is " + (expected ? "" : "not ") + "the TSC");
    }
    try (NcclInspector inspector = NcclInspector.enable(config().tscClock(false).build())) {
      assertFalse(NativeCore.get().tscClockActive());
    }
  }
}
