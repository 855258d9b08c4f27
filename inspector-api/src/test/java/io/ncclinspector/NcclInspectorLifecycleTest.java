package io.ncclinspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.internal.NativeCore;
import io.ncclinspector.nativecore.ProfilerTableDriver;
import io.ncclinspector.replay.ReplayResult;
import io.ncclinspector.replay.TraceReplayer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NcclInspectorLifecycleTest {
  @TempDir Path dir;

  @AfterEach
  void closeWhateverIsOpen() {
    NcclInspector.current().ifPresent(NcclInspector::close);
    NativeCore.get().setenv("NCCL_PROFILER_PLUGIN", "");
  }

  private InspectorConfig.Builder config() {
    return InspectorConfig.builder().dumpDirectory(dir.resolve("out")).minMessageBytes(0)
        .requireKernelTiming(false);
  }

  @Test
  void enablePointsNcclAtTheLoadedLibraryItself() throws Exception {
    try (NcclInspector inspector = NcclInspector.enable(config().build())) {
      Path lib = inspector.libraryPath().orElseThrow();
      assertTrue(lib.isAbsolute() && Files.isRegularFile(lib), lib::toString);
      String variable = NativeCore.get().getenv("NCCL_PROFILER_PLUGIN");
      assertEquals(lib.toString(), variable);
      /* As NCCL does: dlopen the variable's value and find the v5 table in it. */
      assertEquals(0, ProfilerTableDriver.open(variable), ProfilerTableDriver::error);
      assertTrue(Files.isSameFile(lib, Path.of(ProfilerTableDriver.loadedPath())));
      ProfilerTableDriver.close();
      assertTrue(inspector.isActive());
      assertEquals(dir.resolve("out").resolve(inspector.config().processIdentity().hostname() + "-pid"
          + ProcessHandle.current().pid() + ".log").toAbsolutePath(), inspector.outputFile().orElseThrow());
    }
  }

  @Test
  void enablingTwiceFailsClearlyAndCurrentSharesTheActiveOne() {
    NcclInspector first = NcclInspector.enable(config().build());
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> NcclInspector.enable(config().build()));
    assertTrue(e.getMessage().contains("already enabled"), e.getMessage());
    assertSame(first, NcclInspector.current().orElseThrow());
    first.close();
    assertTrue(NcclInspector.current().isEmpty());
  }

  @Test
  void closingTwiceIsHarmlessAndEnablingAgainAppendsToTheSameFile() throws Exception {
    Path trace = new SyntheticTrace().init(1, 0x1234L, 0, 2)
        .raw("").fini(1).write(dir.resolve("t"), 77);
    NcclInspector a = NcclInspector.enable(config().build());
    a.close();
    a.close();
    assertFalse(a.isActive());
    SyntheticTrace s = new SyntheticTrace().init(1, 0x99L, 0, 2);
    int op = s.coll(1, "AllReduce", 0, 1024, "ncclFloat32", 0);
    s.stop(op).fini(1);
    Path t = s.write(dir.resolve("t"), 78);
    ReplayResult first = TraceReplayer.replay(t, config().build(), "host");
    ReplayResult second = TraceReplayer.replay(t, config().build(), "host");
    assertEquals(1, first.recordsWritten());
    assertEquals(1, second.recordsWritten());
    assertEquals(first.outputFile(), second.outputFile());
    assertEquals(2, Files.readAllLines(first.outputFile().orElseThrow()).size(), "re-enabling appends");
    assertTrue(Files.exists(trace));
  }

  @Test
  void anotherPluginInTheEnvironmentIsRefusedUnlessOverridden() {
    NativeCore.get().setenv("NCCL_PROFILER_PLUGIN", "/opt/other/libnccl-profiler-inspector.so");
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> NcclInspector.enable(config().build()));
    assertTrue(e.getMessage().contains("/opt/other/libnccl-profiler-inspector.so"), e.getMessage());
    assertTrue(e.getMessage().contains("overridePlugin"), e.getMessage());
    assertTrue(NcclInspector.current().isEmpty());
    try (NcclInspector inspector = NcclInspector.enable(config().overridePlugin(true).build())) {
      assertEquals(inspector.libraryPath().orElseThrow().toString(), NativeCore.get().getenv("NCCL_PROFILER_PLUGIN"));
    }
    NativeCore.get().setenv("NCCL_PROFILER_PLUGIN", "none");
    assertThrows(IllegalStateException.class, () -> NcclInspector.enable(config().build()));
  }

  @Test
  void anUnwritableDumpDirectoryIsReportedAndProfilingGoesOn() throws Exception {
    Path notADirectory = Files.writeString(dir.resolve("plain-file"), "x");
    SyntheticTrace s = new SyntheticTrace().init(1, 0x42L, 0, 2);
    int op = s.coll(1, "AllReduce", 0, 1 << 20, "ncclFloat32", 1);
    int ch = s.kernelChannel(1, op, 0, 1000);
    s.stop(op).kernelChannelDone(ch, 9000).fini(1);
    Path trace = s.write(dir.resolve("t"), 5);
    InspectorConfig cfg = config().dumpDirectory(notADirectory.resolve("sub")).build();
    ReplayResult r = TraceReplayer.replay(trace, cfg, "host");
    assertEquals(0, r.recordsWritten());
    try (NcclInspector inspector = NcclInspector.enable(cfg)) {
      assertTrue(inspector.outputError().orElseThrow().contains(notADirectory.resolve("sub").toString()),
          inspector.outputError()::get);
      assertTrue(inspector.isActive(), "profiling goes on without the file");
    }
  }

  @Test
  void disabledByTheEnvironmentIsANoOp() {
    NativeCore.get().setenv("NCCL_PROFILER_PLUGIN", "");
    InspectorConfig cfg = InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_ENABLE", "0"))
        .dumpDirectory(dir).build();
    try (NcclInspector inspector = NcclInspector.enable(cfg)) {
      assertFalse(inspector.isActive());
      assertTrue(inspector.libraryPath().isEmpty());
      assertTrue(inspector.outputFile().isEmpty());
      assertEquals("", NativeCore.get().getenv("NCCL_PROFILER_PLUGIN"), "NCCL is not pointed anywhere");
    }
  }

  @Test
  void communicatorsCreatedWhileNotEnabledAreNotProfiled() throws Exception {
    /* NCCL asks the plugin at communicator init. A communicator created while no inspector is
       enabled gets no context, so it stays unprofiled even after enable(): documented behaviour. */
    SyntheticTrace s = new SyntheticTrace().init(1, 0x77L, 0, 2);
    int op = s.coll(1, "AllReduce", 0, 1 << 20, "ncclFloat32", 0);
    s.stop(op).fini(1);
    io.ncclinspector.replay.TraceEvents events =
        new io.ncclinspector.replay.TraceReader().read(s.write(dir.resolve("t"), 9));
    NcclInspector inspector = NcclInspector.enable(config().build());
    Path lib = inspector.libraryPath().orElseThrow();
    inspector.close();
    assertEquals(0, ProfilerTableDriver.open(lib.toString()));
    ProfilerTableDriver.prepare(events.maxHandleId(), events.maxContextId());
    /* init (no inspector) ... then enable ... then the communicator's operation and finalize */
    ProfilerTableDriver.run(events.events().slice(0, 128), 1, 0, null);
    try (NcclInspector again = NcclInspector.enable(config().build())) {
      ProfilerTableDriver.run(events.events().slice(128, 128 * (events.count() - 1)), events.count() - 1, 0, null);
      again.close();
      assertEquals(0, again.recordsWritten());
      assertEquals(0, again.counters().totalDrops());
    } finally {
      ProfilerTableDriver.close();
    }
  }

  @Test
  void environmentVariablesConfigureLikeTheReference() {
    InspectorConfig c = InspectorConfig.builder().fromEnvironment(Map.of(
        "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", "250000",
        "NCCL_INSPECTOR_DUMP_DIR", "/tmp/x",
        "NCCL_INSPECTOR_DUMP_VERBOSE", "1",
        "NCCL_INSPECTOR_ENABLE_P2P", "0",
        "NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES", "0",
        "NCCL_INSPECTOR_REQUIRE_KERNEL_TIMING", "0")).build();
    assertEquals(Duration.ofMillis(250), c.dumpInterval());
    assertEquals(Path.of("/tmp/x"), c.dumpDirectory());
    assertTrue(c.verbose() && !c.trackP2p() && !c.requireKernelTiming() && c.jsonOutput());
    assertEquals(0, c.minMessageBytes());
    InspectorConfig d = InspectorConfig.builder().fromEnvironment(Map.of()).build();
    assertTrue(d.enabled() && d.trackP2p() && d.requireKernelTiming() && !d.verbose());
    assertEquals(8192, d.minMessageBytes());
    assertEquals(Path.of("nccl-inspector-unknown-jobid"), d.dumpDirectory());
    assertEquals(Path.of("nccl-inspector-4242"),
        InspectorConfig.builder().fromEnvironment(Map.of("SLURM_JOBID", "4242")).build().dumpDirectory());
    assertFalse(InspectorConfig.builder()
        .fromEnvironment(Map.of("NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", "-1")).build().jsonOutput());
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES", "lots")));
    assertTrue(bad.getMessage().contains("NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES"), bad.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_RING_CELLS", "1000")));
  }
}
