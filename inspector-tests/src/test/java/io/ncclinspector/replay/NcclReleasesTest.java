package io.ncclinspector.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.InspectorStatus;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.RecordFlag;
import io.ncclinspector.TimingSource;
import io.ncclinspector.testkit.SyntheticTrace;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import io.ncclinspector.testsupport.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What NCCL 2.29 and 2.30 change for a profiler (docs/nccl-defects-and-releases.md,
 * "NCCL releases"), on the recordings of the release matrix (testdata/traces/s29_*, s30_*, one
 * H200, two ranks over sockets) and on synthetic streams: every collective call is in the output,
 * also a Broadcast NCCL gives no event (from its call, untimed, with the reason); the release and
 * interface go into every record and the status;
 * NCCL ceasing to deliver kernel events is said; the workaround enable() applies is reported.
 */
class NcclReleasesTest {
  private static final String ALLGATHERV = "NCCL_ALLGATHERV_ENABLE";
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

  @TempDir Path out;

  @AfterEach
  void unsetTheWorkaround() {
    ProfilerTableDriver.setenv(ALLGATHERV, null); /* enable() sets it in this test JVM's environment */
  }

  private static InspectorConfig.Builder config(Path dir) {
    return InspectorConfig.builder().dumpDirectory(dir).verbose(true).minMessageBytes(0).requireKernelTiming(false);
  }

  private static List<JsonNode> records(ReplayResult r) throws IOException {
    List<JsonNode> all = new ArrayList<>();
    Path main = r.outputFile().orElseThrow();
    all.addAll(ReferenceConformanceTest.readLines(main));
    Path q = main.resolveSibling(main.getFileName().toString().replace(".log", ".quarantine.log"));
    if (Files.exists(q)) {
      all.addAll(ReferenceConformanceTest.readLines(q));
    }
    return all;
  }

  /** The application's collective calls in a trace (CollApi events, graph captures aside), by operation. */
  private static Map<String, Long> calls(Path trace) throws IOException {
    return traceLines(trace).stream()
        .filter(e -> "start".equals(e.path("ev").asText()) && "CollApi".equals(e.path("type").asText()))
        .filter(e -> e.path("graphCaptured").asInt() == 0)
        .collect(Collectors.groupingBy(e -> e.get("func").asText(), Collectors.counting()));
  }

  /** A trace's lines; a run killed mid-line (a hang) ends with a partial one, left out. */
  private static List<JsonNode> traceLines(Path trace) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    try (java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(
        new java.util.zip.GZIPInputStream(Files.newInputStream(trace)), java.nio.charset.StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        try {
          out.add(JSON.readTree(line));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
          break;
        }
      }
    } catch (java.io.EOFException e) {
      /* cut short: what came before counts */
    }
    return out;
  }

  private static Map<String, Long> collectives(List<JsonNode> recs, Function<JsonNode, Boolean> which) {
    return recs.stream().filter(r -> r.has("coll_perf") && which.apply(r.get("coll_perf")))
        .collect(Collectors.groupingBy(r -> r.at("/coll_perf/coll").asText(), Collectors.counting()));
  }

  /**
   * NCCL 2.30.7 with its default: every Broadcast went through the AllGatherV path and got no Coll
   * event (the run then hung at its first grouped broadcasts and was killed). Each call is in the
   * output from its CollApi event, untimed, with NCCL's defect as the reason, numbered per
   * operation as NCCL numbers broadcasts; the metadata names the release and the interface.
   */
  @Test
  void broadcastsWithoutEventsAreRecordedFromTheirCalls() throws IOException {
    Path trace = TestData.traceFiles("s30_bcast_raw").get(0);
    ReplayResult r = TraceReplayer.replay(trace, config(out).build(), "vm");
    List<JsonNode> recs = records(r);
    Map<String, Long> calls = calls(trace);
    assertEquals(72, calls.get("Broadcast"));
    assertEquals(calls, collectives(recs, p -> true), "every collective call has one record");
    List<JsonNode> broadcasts = recs.stream().filter(x -> "Broadcast".equals(x.at("/coll_perf/coll").asText())).toList();
    for (JsonNode b : broadcasts) {
      JsonNode p = b.get("coll_perf");
      assertEquals("none", p.get("coll_timing_source").asText(), p.toString());
      assertEquals("nccl_broadcast_allgatherv", p.get("coll_untimed_reason").asText(), p.toString());
      assertTrue(p.get("coll_flags").toString().contains("not_profiled_by_nccl"), p.toString());
      assertEquals(0, p.get("coll_exec_time_ns").asLong());
      assertEquals(0.0, p.get("coll_busbw_gbs").asDouble());
      assertTrue(p.get("coll_msg_size_bytes").asLong() > 0);
      assertEquals("2.30.7", b.at("/metadata/nccl_version").asText());
      assertEquals(6, b.at("/metadata/profiler_interface_version").asInt());
    }
    assertEquals(List.of(0L, 1L, 2L), broadcasts.stream().map(b -> b.at("/coll_perf/coll_sn").asLong()).sorted()
        .limit(3).toList(), "numbered per operation from 0, as NCCL numbers them");
    assertEquals(72, r.counters().get("not_profiled_by_nccl"));
    assertEquals(72, r.status().nccl().notProfiledByNccl());
    assertEquals(List.of("2.30.7"), r.status().nccl().releases());
    assertEquals(List.of(6), r.status().nccl().interfaceVersions());
  }

  /**
   * The same loop with NCCL_ALLGATHERV_ENABLE=0, as enable() sets it, on 2.29.7 and 2.30.7: every
   * Broadcast has its events and a GPU time, and every call has its record, with its call number.
   */
  @Test
  void withTheWorkaroundEveryBroadcastIsTimed() throws IOException {
    for (String scenario : List.of("s29_bcast", "s30_bcast")) {
      Path trace = TestData.traceFiles(scenario).get(0);
      ReplayResult r = TraceReplayer.replay(trace, config(out.resolve(scenario)).build(), "vm");
      List<JsonNode> recs = records(r);
      assertEquals(calls(trace), collectives(recs, p -> true), scenario);
      assertEquals(calls(trace), collectives(recs, p -> "kernel_gpu".equals(p.get("coll_timing_source").asText())),
          scenario + ": every collective GPU-timed");
      assertEquals(0, r.counters().get("not_profiled_by_nccl"), scenario);
      long callNumbers = recs.stream().filter(x -> x.has("coll_perf")).map(x -> x.at("/coll_perf/coll_api_sn"))
          .filter(JsonNode::isNumber).map(JsonNode::asLong).distinct().count();
      assertEquals(recs.stream().filter(x -> x.has("coll_perf")).count(), callNumbers,
          scenario + ": each record a call of its own");
    }
  }

  /**
   * The Java program with enable() and the workaround switched off, live on 2.30.7: its records of
   * the run say that NCCL stopped delivering kernel events after the broadcasts (quarantined
   * kernel_events_missing, untimed), and that the broadcasts were not profiled by NCCL.
   */
  @Test
  void theLiveRunSaidWhatNcclDid() throws IOException {
    List<JsonNode> live = ReferenceConformanceTest.readLines(TestData.traces().resolve("s30_java_raw/live-output-rank0.ndjson"));
    Map<String, Long> missing = collectives(live, p -> "kernel_events_missing".equals(p.path("coll_quarantine_reason").asText()));
    assertTrue(missing.getOrDefault("AllReduce", 0L) > 0, "AllReduces left without kernel events: " + missing);
    for (JsonNode r : live) {
      JsonNode p = r.get("coll_perf");
      if ("kernel_events_missing".equals(p.path("coll_quarantine_reason").asText())) {
        assertEquals("none", p.get("coll_timing_source").asText(), p.toString());
      }
      if ("Broadcast".equals(p.get("coll").asText())) {
        assertEquals("nccl_broadcast_allgatherv", p.get("coll_untimed_reason").asText(), p.toString());
      }
    }
    List<JsonNode> on = ReferenceConformanceTest.readLines(TestData.traces().resolve("s30_java_on/live-output-rank0.ndjson"));
    assertTrue(on.stream().allMatch(r -> "kernel_gpu".equals(r.at("/coll_perf/coll_timing_source").asText())),
        "with the workaround every record of the live run is GPU-timed");
  }

  /**
   * A communicator whose operations got kernel events and then get none (NCCL 2.29-2.30 after a
   * Broadcast on the AllGatherV path): after three, the status names it and says why, once; the
   * records are quarantined kernel_events_missing, untimed; a copy-engine collective (interface
   * v6) is recorded with its own timing.
   */
  @Test
  void kernelEventsThatStopAreSaidAndCopyEngineCollectivesRecorded() throws IOException {
    SyntheticTrace t = new SyntheticTrace().init(1, 0x5ee, 0, 2, 23007, 6);
    t.kernelLaunch(1);
    int api = t.collApi(1, "AllReduce", 1024, "ncclFloat32", 0);
    int op = t.coll(1, api, "AllReduce", 0, 1024, "ncclFloat32", 1);
    int ch = t.kernelChannel(1, op, 0, SyntheticTrace.WALL + 2_000_000_000L);
    t.stop(op).kernelChannelDone(ch, SyntheticTrace.WALL + 2_000_010_000L);
    for (int i = 1; i <= 4; i++) {
      t.clock(2_000_000_000L + i * 100_000L).kernelLaunch(1);
      t.stop(t.coll(1, t.collApi(1, "AllReduce", 1024, "ncclFloat32", 0), "AllReduce", i, 1024, "ncclFloat32", 2));
    }
    int ceApi = t.collApi(1, "AllGather", 4096, "ncclFloat32", 0);
    t.stop(t.ceColl(1, ceApi, "AllGather", 0, 4096, "ncclFloat32"));
    /* 20 s later: past the in-flight expiry (10 s) of the four operations without channels, which the
       dump thread's sweeps then close on the trace's clock, before the finalize (played after them). */
    t.clock(22_000_000_000L).kernelLaunch(1);
    t.fini(1);
    Path trace = t.write(out.resolve("trace"), 4242);
    List<OperationRecord> delivered = new CopyOnWriteArrayList<>();
    NcclInspector inspector = NcclInspector.enable(
        config(out.resolve("dump")).inflightExpiry(Duration.ofSeconds(10)).build());
    try (inspector) {
      inspector.addListener(new InspectorListener() {
        @Override
        public void operationCompleted(OperationRecord record) {
          delivered.add(record);
        }
      });
      try (TracePlayer player = TracePlayer.open(inspector, new TraceReader().read(trace), true)) {
        player.play(player.size() - 1);
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (inspector.counters().get("kernel_events_missing") < 4 && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        player.playAll(); /* the finalize */
      }
      inspector.flush();
    }
    InspectorStatus status = inspector.status();
    List<OperationRecord> missing = delivered.stream()
        .filter(x -> x.timing().quarantine() == Quarantine.KERNEL_EVENTS_MISSING).toList();
    assertEquals(4, missing.size(), delivered::toString);
    missing.forEach(x -> assertEquals(TimingSource.NONE, x.timing().source()));
    InspectorStatus.Nccl nccl = status.nccl();
    assertEquals(1, nccl.kernelEventsStopped().size(), nccl::toString);
    assertTrue(status.problems().stream().anyMatch(p -> p.contains("stopped getting kernel events")),
        status.problems()::toString);
    CollectiveRecord ce = (CollectiveRecord) delivered.stream().filter(x -> x.flags().contains(RecordFlag.COPY_ENGINE))
        .findFirst().orElseThrow(() -> new AssertionError("no copy-engine record in " + delivered));
    assertEquals(TimingSource.CE_CPU, ce.timing().source());
    assertEquals("AllGather", ce.operation());
    assertEquals(5, ce.callNumber(), "the sixth collective call of the communicator");
    assertEquals("2.30.7", ce.communicator().ncclVersion().orElseThrow());
    assertEquals(6, ce.communicator().profilerInterfaceVersion());
  }

  /**
   * enable() sets NCCL_ALLGATHERV_ENABLE=0 where the program has not, says so in the status, leaves
   * a value the program set, and sets nothing when told not to.
   */
  @Test
  void theWorkaroundIsAppliedOnlyWhereTheProgramLeftItUnset() {
    ProfilerTableDriver.setenv(ALLGATHERV, null);
    try (NcclInspector i = NcclInspector.enable(config(out.resolve("a")).build())) {
      InspectorStatus.Workaround w = i.status().nccl().workarounds().get(0);
      assertEquals(ALLGATHERV, w.variable());
      assertTrue(w.applied());
      assertEquals("0", ProfilerTableDriver.getenv(ALLGATHERV));
    }
    ProfilerTableDriver.setenv(ALLGATHERV, "1");
    try (NcclInspector i = NcclInspector.enable(config(out.resolve("b")).build())) {
      InspectorStatus.Workaround w = i.status().nccl().workarounds().get(0);
      assertFalse(w.applied());
      assertEquals("1", w.value());
      assertEquals("1", ProfilerTableDriver.getenv(ALLGATHERV), "a value the program set is kept");
    }
    ProfilerTableDriver.setenv(ALLGATHERV, null);
    try (NcclInspector i = NcclInspector.enable(config(out.resolve("c")).ncclWorkarounds(false).build())) {
      assertFalse(i.status().nccl().workarounds().get(0).applied());
      assertEquals(null, ProfilerTableDriver.getenv(ALLGATHERV));
    }
  }

  /**
   * The shared object exports the table of every interface version NCCL may ask for (v1 to v6),
   * whatever the core's own code happens to reference: NCCL 2.29+ looks for v6 first, older releases
   * for theirs.
   */
  @Test
  void everyInterfaceTableIsExported() {
    try (NcclInspector i = NcclInspector.enable(config(out).build())) {
      assertEquals(0, ProfilerTableDriver.open(i.status().libraryPath().orElseThrow().toString()));
      try {
        assertEquals(0b1111110, ProfilerTableDriver.exportedVersions(), "bits 1..6: ncclProfiler_v1 ... v6");
      } finally {
        ProfilerTableDriver.close();
      }
    }
  }

  /** A replay of a recording without the release (older traces) says "unknown", and nothing breaks. */
  @Test
  void olderRecordingsHaveNoRelease() throws IOException {
    ReplayResult r = TraceReplayer.replay(TestData.traceFiles("h2_coal").get(0), config(out).build(), "vm");
    assertEquals(List.of("unknown"), r.status().nccl().releases());
    Map<String, Integer> seen = new ConcurrentHashMap<>();
    for (JsonNode x : records(r)) {
      assertTrue(x.at("/metadata/nccl_version").isMissingNode(), x.toString());
      seen.merge(x.has("coll_perf") ? "coll" : "p2p", 1, Integer::sum);
    }
    assertTrue(seen.get("coll") > 0);
  }
}
