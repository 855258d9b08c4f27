package io.ncclinspector.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.testsupport.TestData;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replays every complete recorded trace (one that ends with a finalize) and compares the output
 * with what NVIDIA's reference Inspector wrote in the same run: a record of ours for every
 * reference record, with equal operation, size and timing source, and for GPU-timed records equal
 * execution time, algorithm and bus bandwidth. Deviations are accepted only where the reference
 * is wrong, each recognised and asserted explicitly:
 *
 * <ul>
 *   <li>id: the reference cuts the communicator id to 14 hex digits; ours has all 16;
 *   <li>uint8: NCCL 2.28 names uint8 "Unknown" and the reference computes a size of
 *       (2^64 - 1) x count (wrapped); ours is count x 1 byte, flagged;
 *   <li>channel index: the reference reads channels 0..nChannels-1 although NCCL numbers them by
 *       their real channel id; an operation on other channels gets no GPU timing there (timing
 *       source collective_cpu or kernel_cpu, zero kernel timestamps in its trace). Ours is
 *       kernel_gpu, and the trace shows the operation's channel ids outside 0..nChannels-1. Where
 *       the reference found some of its channels and missed others, its time is the maximum over a
 *       subset of ours;
 *   <li>lagging channels: after a send/recv to the own rank (every AlltoAll) NCCL hands some
 *       channels another work item's timestamps, for good (docs/nccl-defects-and-releases.md,
 *       "NCCL's kernel-channel defect"). The reference turns them into times; ours leaves those
 *       channels out (or, when all of an operation's channels lag, gives no time). Such records
 *       are left out of the time comparison, checked for what ours says about them instead, and
 *       counted.
 * </ul>
 */
class ReferenceConformanceTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern PID = Pattern.compile("pid(\\d+)");
  private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

  @TempDir Path out;

  @TestFactory
  Stream<DynamicTest> everyCompleteTraceMatchesTheReference() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    for (String scenario : TestData.scenarios()) {
      if (!Files.isDirectory(TestData.traces().resolve(scenario).resolve("inspector"))) {
        continue; /* recorded by this project alone: no reference output to compare with */
      }
      for (Path trace : TestData.traceFiles(scenario)) {
        tests.add(DynamicTest.dynamicTest(scenario + "/" + trace.getFileName(), () -> check(scenario, trace)));
      }
    }
    assertFalse(tests.isEmpty(), "no traces found");
    return tests.stream();
  }

  private void check(String scenario, Path trace) throws IOException {
    TraceEvents events = new TraceReader().read(trace);
    if (!events.endsWithFinalize()) {
      return; /* a crashed run: the reference's output is not complete; see TraceReplayTest */
    }
    Path reference = referenceFor(trace);
    InspectorConfig config = InspectorConfig.builder()
        .dumpDirectory(out.resolve(scenario))
        .verbose(true)
        .minMessageBytes(0)
        .requireKernelTiming(false)
        .build();
    ReplayResult result = TraceReplayer.replay(trace, config, "vm");
    assertTrue(result.problems().isEmpty(), () -> "trace problems: " + result.problems());
    assertEquals(0, result.counters().totalDrops() - result.counters().get("below_min_size"),
        () -> "drops: " + result.counters().drops());

    /* The output file is created at the first record that is not quarantined: a run whose every
       record was quarantined has only the quarantine file. */
    Path main = result.outputFile().orElse(out.resolve(scenario).resolve("vm-pid" + events.recordedPid().orElseThrow() + ".log"));
    List<JsonNode> ours = new ArrayList<>(Files.exists(main) ? readLines(main) : List.of());
    Path quarantine = quarantineFileOf(main);
    if (Files.exists(quarantine)) {
      ours.addAll(readLines(quarantine)); /* records whose GPU timestamps we do not trust */
    }
    List<JsonNode> theirs = readLines(reference);
    List<String> commIds = commIdsOf(trace);
    for (JsonNode r : ours) {
      assertTrue(commIds.contains(r.at("/header/id").asText()),
          () -> "header.id " + r.at("/header/id") + " is not one of the trace's communicator ids " + commIds);
    }
    Map<String, JsonNode> ourColls = new HashMap<>();
    Map<String, List<JsonNode>> ourP2ps = new HashMap<>();
    for (JsonNode r : ours) {
      String id = r.at("/header/id").asText();
      if (r.has("coll_perf")) {
        JsonNode c = r.get("coll_perf");
        JsonNode previous = ourColls.put(id + "/" + c.get("coll").asText() + "/" + c.get("coll_sn").asLong(), r);
        assertNull(previous, () -> "two records of ours for one collective: " + c);
      } else {
        JsonNode p = r.get("p2p_perf");
        ourP2ps.computeIfAbsent(id + "/" + p.get("p2p").asText() + "/" + p.get("p2p_peer").asInt(),
            k -> new ArrayList<>()).add(r);
      }
    }
    ourP2ps.values().forEach(l -> l.sort((a, b) -> Long.compare(a.at("/p2p_perf/p2p_sn").asLong(),
        b.at("/p2p_perf/p2p_sn").asLong())));

    Map<String, Integer> deviations = new TreeMap<>();
    Map<String, Integer> p2pOrder = new HashMap<>();
    List<JsonNode> theirP2ps = new ArrayList<>();
    for (JsonNode ref : theirs) {
      String refId = ref.at("/header/id").asText();
      String ourId = fullId(refId, ours);
      deviations.merge("id cut to 14 hex digits by the reference", ourId.equals(refId) ? 0 : 1, Integer::sum);
      if (ref.has("coll_perf")) {
        JsonNode rc = ref.get("coll_perf");
        String key = ourId + "/" + rc.get("coll").asText() + "/" + rc.get("coll_sn").asLong();
        JsonNode mine = ourColls.get(key);
        assertNotNull(mine, () -> "no record of ours for reference collective " + key);
        compare(ref, mine, "coll", deviations, events, trace);
      } else {
        theirP2ps.add(ref);
      }
    }
    theirP2ps.sort((a, b) -> Long.compare(a.at("/p2p_perf/p2p_sn").asLong(), b.at("/p2p_perf/p2p_sn").asLong()));
    for (JsonNode ref : theirP2ps) {
      String ourId = fullId(ref.at("/header/id").asText(), ours);
      JsonNode rp = ref.get("p2p_perf");
      String group = ourId + "/" + rp.get("p2p").asText() + "/" + rp.get("p2p_peer").asInt();
      int order = p2pOrder.merge(group, 1, Integer::sum) - 1;
      List<JsonNode> mine = ourP2ps.getOrDefault(group, List.of());
      assertTrue(order < mine.size(), () -> "no record of ours for reference P2P " + group + " #" + order);
      compare(ref, mine.get(order), "p2p", deviations, events, trace);
    }
    System.out.printf("%s/%s: %d reference records matched by %d of ours; deviations %s%n", scenario,
        trace.getFileName(), theirs.size(), ours.size(), deviations);
  }

  private static void compare(JsonNode ref, JsonNode mine, String kind, Map<String, Integer> deviations,
      TraceEvents events, Path trace) {
    JsonNode r = ref.get(kind + "_perf");
    JsonNode m = mine.get(kind + "_perf");
    String what = kind + " " + r;
    assertEquals(r.get(kind).asText(), m.get(kind).asText(), what);
    assertEquals(ref.at("/header/rank").asInt(), mine.at("/header/rank").asInt(), what);
    assertEquals(ref.at("/header/n_ranks").asInt(), mine.at("/header/n_ranks").asInt(), what);
    assertEquals(ref.at("/header/nnodes").asInt(), mine.at("/header/nnodes").asInt(), what);
    assertEquals(recordedInterface(trace), mine.at("/metadata/profiler_interface_version").asInt(),
        "the interface the trace recorded (v5 for the recordings without it)");

    BigInteger refSize = new BigInteger(r.get(kind + "_msg_size_bytes").asText());
    long mySize = m.get(kind + "_msg_size_bytes").asLong();
    if ("Unknown".equals(m.path(kind + "_datatype").asText())) {
      long count = m.get(kind + "_count").asLong();
      assertEquals(count, mySize, "uint8 (\"Unknown\") counts one byte per element: " + what);
      assertEquals(TWO_64.subtract(BigInteger.valueOf(count)).mod(TWO_64), refSize,
          "the reference's wrapped uint8 size: " + what);
      deviations.merge("uint8 size wrapped by the reference", 1, Integer::sum);
      return; /* its bandwidths derive from the wrapped size */
    }
    assertEquals(refSize.longValueExact(), mySize, "message size: " + what);

    String refSource = r.get(kind + "_timing_source").asText();
    String mySource = m.get(kind + "_timing_source").asText();
    List<String> lagging = laggingChannels(m);
    if ("kernel_channel_desync".equals(m.path(kind + "_quarantine_reason").asText())) {
      /* Every channel of ours carried another work item's timestamps (NCCL's channel counter
         desync after a send/recv to self): we give no time; the reference's is that other work's. */
      assertEquals("none", mySource, "an untimed record: " + what);
      assertEquals(0, m.get(kind + "_exec_time_ns").asLong(), what);
      int seen = m.get(kind + "_channels_seen").asInt();
      assertEquals(seen, lagging.size(), "every channel it saw lags: " + what);
      assertEquals(seen, m.get(kind + "_channels_desynced").asInt(), what);
      deviations.merge("left out: every channel lagging (the reference timed it with another work's timestamps)",
          1, Integer::sum);
      return;
    }
    if ("recovered".equals(m.path(kind + "_time_recovery").asText())) {
      /* Channel recovery: its lagging channels were timed by their own work items' timestamps, which
         NCCL handed to later operations (the reference's time mixes in other work's). Channels that
         could not be recovered are left out and mark the time a lower bound, as before. */
      assertEquals("kernel_gpu", mySource, what);
      assertTrue(m.get(kind + "_channels_recovered").asInt() > 0, what);
      assertEquals(m.path(kind + "_channels_desynced").asInt() > 0, flags(m, kind).contains("desync_channels_excluded"),
          what);
      deviations.merge("recovered: lagging channels timed by their own work items (the reference mixes in"
          + " other work's)", 1, Integer::sum);
      return;
    }
    if (!lagging.isEmpty()) {
      /* Timed from the channels that ran in step; the reference's maximum may be a lagging one's. */
      assertTrue(flags(m, kind).contains("desync_channels_excluded"), what);
      assertEquals(lagging.size(), m.get(kind + "_channels_desynced").asInt(), what);
      assertTrue(m.get(kind + "_channels_seen").asInt() > lagging.size(), what);
      deviations.merge("left out: some channels lagging (timed from the others; the reference mixes them)", 1,
          Integer::sum);
      return;
    }
    if (!refSource.equals(mySource)) {
      assertEquals("kernel_gpu", mySource, "timing source: " + what);
      int announced = m.get(kind + "_nchannels").asInt();
      List<Integer> ids = new ArrayList<>();
      m.at("/event_trace_sn/kernel_events").forEach(k -> ids.add(k.get("channel_id").asInt()));
      boolean noReferenceTrace = ref.at("/" + kind + "_perf/event_trace_ts/kernel_events").isMissingNode();
      assertTrue(referenceMissedTheChannels(ref, kind)
              || (noReferenceTrace && ids.stream().allMatch(id -> id >= announced)),
          "reference had kernel timestamps yet no GPU timing: " + what);
      assertTrue(ids.stream().anyMatch(id -> id >= announced),
          "channel ids " + ids + " all within 0.." + (announced - 1) + ": " + what);
      deviations.merge("channels outside 0..nChannels-1 missed by the reference", 1, Integer::sum);
      return;
    }
    if (refSource.equals("kernel_gpu") && referenceReadAnEmptyChannel(ref, kind)
        && ourChannelsReachBeyondTheAnnounced(m, kind)) {
      /* The reference read channels 0..nChannels-1 and found some of them empty: the operation ran
         on channels it did not read, so its maximum is over a subset of ours. */
      assertTrue(m.get(kind + "_exec_time_us").asLong() >= r.get(kind + "_exec_time_us").asLong(), what);
      deviations.merge("channels outside 0..nChannels-1 missed by the reference", 1, Integer::sum);
      return;
    }
    if (refSource.equals("kernel_gpu")) {
      assertEquals(r.get(kind + "_exec_time_us").asLong(), m.get(kind + "_exec_time_us").asLong(),
          "execution time: " + what);
      assertEquals(r.get(kind + "_algobw_gbs").asDouble(), m.get(kind + "_algobw_gbs").asDouble(), 1.5e-6,
          "algorithm bandwidth: " + what);
      assertEquals(r.get(kind + "_busbw_gbs").asDouble(), m.get(kind + "_busbw_gbs").asDouble(), 1.5e-6,
          "bus bandwidth: " + what);
      deviations.merge("none (kernel_gpu, equal time and bandwidth)", 1, Integer::sum);
    } else {
      deviations.merge("none (" + refSource + ")", 1, Integer::sum);
    }
  }

  /** Our channels (verbose trace) that carried another work item's timestamps. */
  private static List<String> laggingChannels(JsonNode mine) {
    List<String> ids = new ArrayList<>();
    for (JsonNode k : mine.at("/event_trace_ts/kernel_events")) {
      if (k.has("kernel_desync")) {
        ids.add(k.get("channel_id").asText() + ":" + k.get("kernel_desync").asText());
      }
    }
    return ids;
  }

  private static List<String> flags(JsonNode m, String kind) {
    List<String> names = new ArrayList<>();
    m.path(kind + "_flags").forEach(f -> names.add(f.asText()));
    return names;
  }

  /** The reference's verbose trace shows a channel it read without any timestamp. */
  private static boolean referenceReadAnEmptyChannel(JsonNode ref, String kind) {
    for (JsonNode k : ref.at("/" + kind + "_perf/event_trace_ts/kernel_events")) {
      if (k.get("kernel_start_ts").asLong() == 0) {
        return true;
      }
    }
    return false;
  }

  private static boolean ourChannelsReachBeyondTheAnnounced(JsonNode m, String kind) {
    int announced = m.get(kind + "_nchannels").asInt();
    for (JsonNode k : m.at("/event_trace_sn/kernel_events")) {
      if (k.get("channel_id").asInt() >= announced) {
        return true;
      }
    }
    return false;
  }

  private static Path quarantineFileOf(Path output) {
    String name = output.getFileName().toString();
    return output.resolveSibling(name.substring(0, name.length() - ".log".length()) + ".quarantine.log");
  }

  /** The reference's verbose trace shows no kernel timestamp on any channel it looked at. */
  private static boolean referenceMissedTheChannels(JsonNode ref, String kind) {
    JsonNode kernels = ref.at("/" + kind + "_perf/event_trace_ts/kernel_events");
    if (kernels.isMissingNode() || kernels.isEmpty()) {
      return false;
    }
    for (JsonNode k : kernels) {
      if (k.get("kernel_start_ts").asLong() != 0) {
        return false;
      }
    }
    return true;
  }

  /** Our full id whose 14-digit prefix the reference printed. */
  private static String fullId(String refId, List<JsonNode> ours) {
    for (JsonNode r : ours) {
      String id = r.at("/header/id").asText();
      if (id.equals(refId)) {
        return id;
      }
      if (id.startsWith(refId) && id.length() == refId.length() + 2 && refId.length() == 16) {
        return id;
      }
    }
    fail("no communicator of ours matches reference id " + refId);
    return null;
  }

  /** The full communicator ids of a trace's init lines, written as the JSON output writes them. */
  private static final Map<Path, Integer> INTERFACES = new java.util.concurrent.ConcurrentHashMap<>();

  /** The profiler interface a trace's first init recorded ({@code "abi"}), 5 where it says none. */
  private static int recordedInterface(Path trace) {
    return INTERFACES.computeIfAbsent(trace, t -> {
      Pattern abi = Pattern.compile("\"abi\":(\\d+)");
      try (BufferedReader r = new BufferedReader(new InputStreamReader(
          new GZIPInputStream(Files.newInputStream(t)), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          if (line.contains("\"ev\":\"init\"")) {
            Matcher m = abi.matcher(line);
            return m.find() ? Integer.parseInt(m.group(1)) : 5;
          }
        }
        return 5;
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
  }

  private static List<String> commIdsOf(Path trace) throws IOException {
    List<String> ids = new ArrayList<>();
    Pattern commId = Pattern.compile("\"commId\":\"0x([0-9a-fA-F]+)\"");
    try (BufferedReader r = new BufferedReader(new InputStreamReader(
        new GZIPInputStream(Files.newInputStream(trace)), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        Matcher m = commId.matcher(line);
        if (line.contains("\"ev\":\"init\"") && m.find()) {
          ids.add("0x" + Long.toHexString(Long.parseUnsignedLong(m.group(1), 16)));
        }
      }
    }
    return ids;
  }

  private static Path referenceFor(Path trace) throws IOException {
    Matcher m = PID.matcher(trace.getFileName().toString());
    assertTrue(m.find());
    Path dir = trace.getParent().getParent().resolve("inspector");
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().contains("-pid" + m.group(1) + "."))
          .findFirst().orElseThrow(() -> new AssertionError("no reference output for " + trace));
    }
  }

  static List<JsonNode> readLines(Path file) throws IOException {
    List<JsonNode> nodes = new ArrayList<>();
    InputStream raw = Files.newInputStream(file);
    InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (!line.isBlank()) {
          nodes.add(JSON.readTree(line));
        }
      }
    }
    return nodes;
  }
}
