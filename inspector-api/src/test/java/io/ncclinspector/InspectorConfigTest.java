package io.ncclinspector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.spi.ExporterContext;
import io.ncclinspector.spi.ExporterFactory;
import io.ncclinspector.spi.ExporterProvider;
import io.ncclinspector.spi.InspectorExporter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The configuration: the reference's environment variables, checks made once at build() naming the
 * setting and the variable it came from, and exporters added in code or found on the class path
 * (this module's tests register {@link EchoProvider}, which the variable {@code ECHO_EXPORTER} turns on).
 */
class InspectorConfigTest {

  /** An exporter factory that starts exporters which do nothing. */
  record Echo(String name, String tag) implements ExporterFactory {
    @Override
    public InspectorExporter start(ExporterContext context) {
      return new InspectorExporter() {};
    }
  }

  /** Found by ServiceLoader (src/test/resources/META-INF/services). */
  public static final class EchoProvider implements ExporterProvider {
    @Override
    public String name() {
      return "echo";
    }

    @Override
    public Optional<ExporterFactory> fromEnvironment(Map<String, String> environment) {
      String v = environment.get("ECHO_EXPORTER");
      if (v != null && !v.matches("[01]")) {
        throw new IllegalArgumentException("ECHO_EXPORTER must be 0 or 1, got '" + v + "'");
      }
      return "1".equals(v) ? Optional.of(new Echo("echo", "discovered")) : Optional.empty();
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
    /* A value that parses but is out of range fails once, at build(), naming where it came from. */
    InspectorConfig.Builder ring = InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_RING_CELLS", "1000"));
    IllegalArgumentException range = assertThrows(IllegalArgumentException.class, ring::build);
    assertTrue(range.getMessage().startsWith("NCCL_INSPECTOR_RING_CELLS=1000: ringCells must be a power of two"),
        range.getMessage());
    IllegalArgumentException inCode = assertThrows(IllegalArgumentException.class,
        () -> InspectorConfig.builder().ringCells(1000).build());
    assertTrue(inCode.getMessage().startsWith("ringCells must be a power of two"), inCode.getMessage());
    assertEquals(2048, InspectorConfig.builder().ringCells(1000).ringCells(2048).build().ringCells(),
        "a setter takes any value; only what is built is checked");
  }

  @Test
  void exportersAreAddedInCodeOrFoundOnTheClassPath() {
    assertTrue(InspectorConfig.defaults().exporters().isEmpty(), "nothing asked for echo");
    InspectorConfig found = InspectorConfig.builder().fromEnvironment(Map.of("ECHO_EXPORTER", "1")).build();
    assertEquals(List.of(new Echo("echo", "discovered")), found.exporters());
    InspectorConfig mine = InspectorConfig.builder().fromEnvironment(Map.of("ECHO_EXPORTER", "1"))
        .exporter(new Echo("echo", "mine")).exporter(new Echo("other", "x")).build();
    assertEquals(List.of(new Echo("echo", "mine"), new Echo("other", "x")), mine.exporters(),
        "one of a name: the configuration's own wins over the discovered one");
    assertTrue(InspectorConfig.builder().fromEnvironment(Map.of("ECHO_EXPORTER", "1")).withoutExporter("echo").build()
        .exporters().isEmpty());
    assertTrue(InspectorConfig.builder().fromEnvironment(Map.of("ECHO_EXPORTER", "1")).discoverExporters(false).build()
        .exporters().isEmpty());
    assertEquals(found.exporters(), found.toBuilder().build().exporters(), "a copy keeps its exporters");
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> InspectorConfig.builder().fromEnvironment(Map.of("ECHO_EXPORTER", "yes")).build());
    assertTrue(bad.getMessage().contains("ECHO_EXPORTER"), bad.getMessage());
    IllegalArgumentException name = assertThrows(IllegalArgumentException.class,
        () -> InspectorConfig.builder().exporter(new Echo("Not A Name", "x")).build());
    assertTrue(name.getMessage().contains("Not A Name"), name.getMessage());
  }

  @Test
  void aPrometheusDumpWithoutThePrometheusModuleIsRefusedWithWhatToAdd() {
    InspectorConfig.Builder b = InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_PROM_DUMP", "1"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::build);
    assertTrue(e.getMessage().contains("io.ncclinspector:inspector-prometheus"), e.getMessage());
  }

  @Test
  void settingsAreCheckedOnceWhenBuilt() {
    InspectorConfig.Builder b = InspectorConfig.builder().minMessageBytes(-1).listenerQueueCapacity(0);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::build);
    assertEquals("minMessageBytes must not be negative: -1", e.getMessage());
    b.minMessageBytes(0);
    e = assertThrows(IllegalArgumentException.class, b::build);
    assertEquals("listenerQueueCapacity must be positive: 0", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> InspectorConfig.builder().hangTimeout(Duration.ofMillis(-1))
        .build());
    assertThrows(IllegalArgumentException.class, () -> InspectorConfig.builder().traceBufferBytes(1024).build());
    IllegalArgumentException env = assertThrows(IllegalArgumentException.class, () -> InspectorConfig.builder()
        .fromEnvironment(Map.of("NCCL_INSPECTOR_HANG_TIMEOUT_MS", "-5")).build());
    assertEquals("NCCL_INSPECTOR_HANG_TIMEOUT_MS=-5: hangTimeout must not be negative: PT-0.005S", env.getMessage());
    assertEquals(Path.of("here"), InspectorConfig.builder().dumpDirectory(Path.of("here")).fromEnvironment(Map.of())
        .build().dumpDirectory(), "an environment without the variable leaves the directory set in code");
    assertFalse(InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_ENABLE", "0")).build().enabled());
  }

  /**
   * Issue 21: booleans took -1, 2147483648 and " 5" as on, NCCL_INSPECTOR_PROM_DUMP=-1 turned JSON output off, and
   * NCCL_INSPECTOR_OTEL=garbage was accepted without a word where the OpenTelemetry module is not on the class path.
   */
  @Test
  void switchesAreZeroOrOneAndAnythingElseFailsNamingTheVariable() {
    for (String variable : List.of("NCCL_INSPECTOR_ENABLE", "NCCL_INSPECTOR_DUMP_VERBOSE", "NCCL_INSPECTOR_ENABLE_P2P",
        "NCCL_INSPECTOR_REQUIRE_KERNEL_TIMING", "NCCL_INSPECTOR_OVERRIDE_PLUGIN", "NCCL_INSPECTOR_PROM_DUMP",
        "NCCL_INSPECTOR_NETWORK_BREAKDOWN", "NCCL_INSPECTOR_NCCL_WORKAROUNDS")) {
      for (String value : List.of("-1", "2", "2147483648", " 5", "yes", "garbage", "0x1", "1.0")) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> InspectorConfig.builder().fromEnvironment(Map.of(variable, value)).build(), variable + "=" + value);
        assertEquals(variable + " must be 0 or 1, got '" + value + "'", e.getMessage());
      }
    }
    assertTrue(InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_DUMP_VERBOSE", " 1\n")).build()
        .verbose(), "blanks around the value are allowed");
    assertFalse(InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_ENABLE_P2P", "0")).build().trackP2p());
    assertTrue(InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_PROM_DUMP", "0")).build().jsonOutput());
    /* Without the OpenTelemetry module on the class path nothing reads its variable, whatever its value: said. */
    for (String value : List.of("1", "garbage")) {
      InspectorConfig c = InspectorConfig.builder().fromEnvironment(Map.of("NCCL_INSPECTOR_OTEL", value)).build();
      assertTrue(c.enabled());
      assertEquals(List.of("NCCL_INSPECTOR_OTEL"), c.ignoredVariables(), value);
    }
  }
}
