package io.ncclinspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.testsupport.Await;
import io.ncclinspector.testsupport.LogCapture;
import io.ncclinspector.testkit.SyntheticTrace;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import io.ncclinspector.replay.ReplayResult;
import io.ncclinspector.replay.TraceReplayer;
import io.ncclinspector.spi.ExporterContext;
import io.ncclinspector.spi.ExporterFactory;
import io.ncclinspector.spi.InspectorExporter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class NcclInspectorLifecycleTest {
  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();
  private static final String NO_NCCL = "no NCCL communicator reached the inspector";

  @AfterEach
  void closeWhateverIsOpen() {
    NcclInspector.current().ifPresent(NcclInspector::close);
    ProfilerTableDriver.setenv("NCCL_PROFILER_PLUGIN", "");
  }

  private InspectorConfig.Builder config() {
    return InspectorConfig.builder().dumpDirectory(dir.resolve("out")).minMessageBytes(0)
        .requireKernelTiming(false);
  }

  @Test
  void enablePointsNcclAtTheLoadedLibraryItself() throws Exception {
    logs.expect("WARN", NO_NCCL);
    try (NcclInspector inspector = NcclInspector.enable(config().build())) {
      Path lib = inspector.status().libraryPath().orElseThrow();
      assertTrue(lib.isAbsolute() && Files.isRegularFile(lib), lib::toString);
      String variable = ProfilerTableDriver.getenv("NCCL_PROFILER_PLUGIN");
      assertEquals(lib.toString(), variable);
      /* As NCCL does: dlopen the variable's value and find the v5 table in it. */
      assertEquals(0, ProfilerTableDriver.open(variable), ProfilerTableDriver::error);
      assertTrue(Files.isSameFile(lib, Path.of(ProfilerTableDriver.loadedPath())));
      ProfilerTableDriver.close();
      assertTrue(inspector.isActive());
      assertEquals(dir.resolve("out").resolve(inspector.config().processIdentity().hostname() + "-pid"
          + ProcessHandle.current().pid() + ".log").toAbsolutePath(), inspector.status().output().orElseThrow().file());
    }
  }

  @Test
  void enablingTwiceFailsClearlyAndCurrentSharesTheActiveOne() {
    logs.expect("WARN", NO_NCCL);
    NcclInspector first = NcclInspector.enable(config().build());
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> NcclInspector.enable(config().build()));
    assertTrue(e.getMessage().contains("already enabled"), e.getMessage());
    assertSame(first, NcclInspector.current().orElseThrow());
    first.close();
    assertTrue(NcclInspector.current().isEmpty());
  }

  @Test
  void closingTwiceIsHarmlessAndEnablingAgainWritesANewFileNeverTouchingTheFirst() throws Exception {
    logs.expect("WARN", NO_NCCL);
    NcclInspector a = NcclInspector.enable(config().build());
    a.close();
    a.close();
    assertFalse(a.isActive());
    assertEquals(1, logs.find("WARN", NO_NCCL).size(), "said once");
    SyntheticTrace s = new SyntheticTrace().init(1, 0x99L, 0, 2);
    int op = s.coll(1, "AllReduce", 0, 1024, "ncclFloat32", 0);
    s.stop(op).fini(1);
    Path t = s.write(dir.resolve("t"), 78);
    ReplayResult first = TraceReplayer.replay(t, config().build(), "host");
    ReplayResult second = TraceReplayer.replay(t, config().build(), "host");
    assertEquals(1, first.status().records().written());
    assertEquals(1, second.status().records().written());
    assertEquals(dir.resolve("out/host-pid78.log").toAbsolutePath(), first.outputFile().orElseThrow());
    assertEquals(dir.resolve("out/host-pid78-1.log").toAbsolutePath(), second.outputFile().orElseThrow(),
        "two runs of one pid never merge into one file");
    assertEquals(1, Files.readAllLines(first.outputFile().orElseThrow()).size(), "the first is left as it was");
    assertEquals(1, Files.readAllLines(second.outputFile().orElseThrow()).size());
  }

  @Test
  void withoutNcclNothingIsCreatedAndTheStatusSaysSo() throws Exception {
    logs.expect("WARN", NO_NCCL);
    Path out = dir.resolve("never-created");
    NcclInspector inspector = NcclInspector.enable(config().dumpDirectory(out).traceDirectory(out.resolve("trace")).build());
    assertEquals(InspectorStatus.State.ACTIVE, inspector.status().state());
    assertTrue(inspector.status().problems().get(0).contains(NO_NCCL), inspector.status().problems()::toString);
    long flushes = inspector.flushesMade();
    inspector.flush();
    Await.until(() -> inspector.flushesMade() > flushes); /* by the dump thread and the JSON writer */
    assertFalse(Files.exists(out), "a flush with nothing to write creates nothing");
    inspector.close();
    InspectorStatus status = inspector.status();
    assertEquals(InspectorStatus.State.CLOSED, status.state());
    assertEquals(0, status.communicatorsSeen());
    assertTrue(status.outputFile().isEmpty());
    assertFalse(status.outputLost());
    assertFalse(Files.exists(out), "no directory, no empty log, no empty recording");
    assertEquals(1, logs.find("WARN", NO_NCCL).size(), "said once, at close");
  }

  @Test
  void anotherPluginInTheEnvironmentIsRefusedUnlessOverridden() {
    logs.expect("WARN", "replaced by the NCCL Inspector's").expect("WARN", NO_NCCL);
    ProfilerTableDriver.setenv("NCCL_PROFILER_PLUGIN", "/opt/other/libnccl-profiler-inspector.so");
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> NcclInspector.enable(config().build()));
    assertTrue(e.getMessage().contains("/opt/other/libnccl-profiler-inspector.so"), e.getMessage());
    assertTrue(e.getMessage().contains("overridePlugin"), e.getMessage());
    assertTrue(NcclInspector.current().isEmpty());
    try (NcclInspector inspector = NcclInspector.enable(config().overridePlugin(true).build())) {
      assertEquals(inspector.status().libraryPath().orElseThrow().toString(), ProfilerTableDriver.getenv("NCCL_PROFILER_PLUGIN"));
    }
    ProfilerTableDriver.setenv("NCCL_PROFILER_PLUGIN", "none");
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
    logs.expect("ERROR", "cannot write NCCL Inspector output").expect("ERROR", "output lost")
        .expect("WARN", NO_NCCL);
    InspectorConfig cfg = config().dumpDirectory(notADirectory.resolve("sub")).build();
    ReplayResult r = TraceReplayer.replay(trace, cfg, "host");
    assertEquals(0, r.recordsWritten());
    assertTrue(r.outputLost(), "the record that could not be written is lost, and said to be");
    assertEquals(1, r.status().records().notWritten());
    assertEquals(1, r.counters().get("json_not_written"));
    assertTrue(r.status().output().orElseThrow().error().orElseThrow().contains("Not a directory")
        || r.status().output().orElseThrow().error().orElseThrow().contains("NotDirectory"), r.status().output().orElseThrow().error()::get);
    try (NcclInspector inspector = NcclInspector.enable(cfg)) {
      assertTrue(inspector.status().output().orElseThrow().error().orElseThrow().contains(notADirectory.toString()),
          inspector.status().output().orElseThrow().error()::get);
      assertTrue(inspector.isActive(), "profiling goes on without the file");
    }
  }

  @Test
  void disabledByTheEnvironmentIsANoOp() {
    logs.allow("INFO", "disabled by configuration");
    ProfilerTableDriver.setenv("NCCL_PROFILER_PLUGIN", "");
    InspectorConfig cfg = InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_ENABLE", "0"))
        .dumpDirectory(dir).build();
    try (NcclInspector inspector = NcclInspector.enable(cfg)) {
      assertFalse(inspector.isActive());
      assertTrue(inspector.status().libraryPath().isEmpty());
      assertTrue(inspector.status().output().isEmpty());
      assertEquals("", ProfilerTableDriver.getenv("NCCL_PROFILER_PLUGIN"), "NCCL is not pointed anywhere");
    }
  }

  @Test
  void communicatorsCreatedWhileNotEnabledAreNotProfiled() throws Exception {
    logs.expect("WARN", NO_NCCL);
    /* NCCL asks the plugin at communicator init. A communicator created while no inspector is
       enabled gets no context, so it stays unprofiled even after enable(): documented behaviour. */
    SyntheticTrace s = new SyntheticTrace().init(1, 0x77L, 0, 2);
    int op = s.coll(1, "AllReduce", 0, 1 << 20, "ncclFloat32", 0);
    s.stop(op).fini(1);
    io.ncclinspector.replay.TraceEvents events =
        new io.ncclinspector.replay.TraceReader().read(s.write(dir.resolve("t"), 9));
    NcclInspector inspector = NcclInspector.enable(config().build());
    Path lib = inspector.status().libraryPath().orElseThrow();
    inspector.close();
    assertEquals(0, ProfilerTableDriver.open(lib.toString()));
    ProfilerTableDriver.prepare(events.maxHandleId(), events.maxContextId());
    /* init (no inspector) ... then enable ... then the communicator's operation and finalize */
    ProfilerTableDriver.run(events.events().slice(0, 128), 1, 0, null);
    try (NcclInspector again = NcclInspector.enable(config().build())) {
      ProfilerTableDriver.run(events.events().slice(128, 128 * (events.count() - 1)), events.count() - 1, 0, null);
      again.close();
      assertEquals(0, again.status().records().written());
      assertEquals(0, again.counters().totalDrops());
    } finally {
      ProfilerTableDriver.close();
    }
  }

  @Test
  void anExporterThatFailsToStartFailsEnableAndLeavesNoThreadBehind() throws Exception {
    ExporterFactory broken = new ExporterFactory() {
      @Override
      public String name() {
        return "broken";
      }

      @Override
      public InspectorExporter start(ExporterContext context) {
        throw new IllegalStateException("port 9400 is taken");
      }
    };
    Set<Thread> before = inspectorThreads();
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> NcclInspector.enable(config().exporter(broken).build()));
    assertTrue(e.getMessage().contains("port 9400 is taken"), e.getMessage());
    assertTrue(NcclInspector.current().isEmpty());
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    Set<Thread> left = inspectorThreads();
    left.removeAll(before);
    while (!left.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
      left = inspectorThreads();
      left.removeAll(before);
    }
    assertEquals(List.of(), left.stream().map(Thread::getName).toList(),
        "threads the failed enable() left behind");
    try (NcclInspector again = NcclInspector.enable(config().build())) {
      assertTrue(again.status().libraryPath().isPresent(), "enable() works again after a failed one");
    }
    logs.expect("WARN", NO_NCCL);
  }

  private static Set<Thread> inspectorThreads() {
    return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
        .filter(t -> t.getName().startsWith("nccl-inspector"))
        .collect(Collectors.toCollection(HashSet::new));
  }
}
