package io.ncclinspector.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import io.ncclinspector.testsupport.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Traces no recorder writes: ids that are negative, past 32 or 64 bits, or past the maps the
 * driver prepared. Each such line is reported and skipped by the reader, and the driver never
 * indexes outside its maps whatever it is handed (these crashed the JVM in the driver before).
 */
class HostileTraceTest {
  @TempDir Path dir;
  @RegisterExtension final LogCapture logs = new LogCapture();

  private InspectorConfig config() {
    return InspectorConfig.builder().dumpDirectory(dir.resolve("out")).minMessageBytes(0)
        .requireKernelTiming(false).build();
  }

  @Test
  void aStopOfHandleMinusOneIsReportedNotPlayed() throws Exception {
    logs.expect("WARN", "\"h\" -1 out of range").expect("WARN", "no NCCL communicator reached the inspector");
    Path trace = Files.writeString(dir.resolve("trace-pid1.jsonl"), "{\"t\":1,\"wall\":1,\"ev\":\"stop\",\"h\":-1}\n");
    ReplayResult r = TraceReplayer.replay(trace, config(), "host");
    assertEquals(0, r.callsMade());
    assertEquals(1, r.problems().size(), r.problems()::toString);
    assertTrue(r.problems().get(0).contains(":1: \"h\" -1 out of range"), r.problems().get(0));
  }

  @Test
  void hugeAndWrappingIdsAreReportedWithTheirLine() throws Exception {
    logs.expect("WARN", "out of range").expect("WARN", "does not fit in 64 bits");
    List<String> lines = List.of(
        "{\"t\":1,\"wall\":1,\"ev\":\"init\",\"ctx\":1,\"commId\":\"0x5\",\"commName\":\"c\",\"nNodes\":1,\"nranks\":2,\"rank\":0}",
        "{\"t\":2,\"wall\":2,\"ev\":\"stop\",\"h\":4294967297}",                 /* 2^32 + 1: 1 as an int */
        "{\"t\":3,\"wall\":3,\"ev\":\"stop\",\"h\":18446744073709551615}",       /* 2^64 - 1: -1 as a long */
        "{\"t\":4,\"wall\":4,\"ev\":\"state\",\"h\":36893488147419103233,\"state\":22}", /* 2^65 + 1 */
        "{\"t\":5,\"wall\":5,\"ev\":\"start\",\"ctx\":1,\"h\":2,\"type\":\"KernelCh\",\"parent\":-7,\"channelId\":0}",
        "{\"t\":6,\"wall\":6,\"ev\":\"start\",\"ctx\":2147483648,\"h\":3,\"type\":\"Coll\",\"func\":\"AllReduce\"}",
        "{\"t\":7,\"wall\":7,\"ev\":\"start\",\"ctx\":1,\"h\":16777217,\"type\":\"Coll\",\"func\":\"AllReduce\"}",
        "{\"t\":8,\"wall\":8,\"ev\":\"fini\",\"ctx\":-1}",
        "{\"t\":9,\"wall\":9,\"ev\":\"fini\",\"ctx\":1}");
    Path trace = Files.write(dir.resolve("trace-pid2.jsonl"), lines, StandardCharsets.UTF_8);
    ReplayResult r = TraceReplayer.replay(trace, config(), "host");
    assertEquals(2, r.traceEvents(), "only the init and the finalize are usable");
    assertEquals(2, r.callsMade());
    assertEquals(7, r.problems().size(), r.problems()::toString);
    for (int line = 2; line <= 8; line++) {
      String p = r.problems().get(line - 2);
      assertTrue(p.startsWith(trace + ":" + line + ": "), p);
      assertTrue(p.contains("out of range") || p.contains("does not fit in 64 bits"), p);
    }
  }

  @Test
  void packedEventsWithIdsPastThePreparedMapsAreNotSent() throws Exception {
    logs.expect("WARN", "no NCCL communicator reached the inspector");
    /* A TraceEvents built by hand, claiming ids up to 1 while its events use -1 and 2^31. */
    ByteBuffer events = ByteBuffer.allocateDirect(3 * DriverEventLayout.EVENT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    int stop = 2, state = 3, handle = 12;
    events.put(0, (byte) stop).putInt(handle, -1);
    events.put(128, (byte) state).putInt(128 + handle, Integer.MIN_VALUE);
    events.put(256, (byte) stop).putInt(256 + handle, 2);
    TraceEvents hostile = new TraceEvents(events, 3, 1, 1, OptionalLong.empty(), List.of(), false, java.util.Optional.empty(), 0, false);
    try (NcclInspector inspector = NcclInspector.enable(config());
        TracePlayer player = TracePlayer.open(inspector, hostile)) {
      assertEquals(3, player.play(3));
      assertEquals(0, player.remaining());
    }
  }

  /** The lines of the bundled 3-rank trace's first process. */
  private static List<String> traceLines() throws Exception {
    try (java.io.InputStream in = new java.util.zip.GZIPInputStream(Files.newInputStream(
        io.ncclinspector.testsupport.TestData.traceFiles("h3_mix").get(0)))) {
      return List.of(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n"));
    }
  }

  private static byte[] gzip(List<String> lines) throws Exception {
    java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream g = new java.util.zip.GZIPOutputStream(b)) {
      g.write((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    }
    return b.toByteArray();
  }

  @Test
  void aDamagedGzipMemberIsDamageNotTheEndOfTheTrace() throws Exception {
    logs.expect("WARN", "the compressed stream is damaged after line");
    List<String> lines = traceLines();
    int half = lines.size() / 2;
    byte[] first = gzip(lines.subList(0, half));
    byte[] second = gzip(lines.subList(half, lines.size()));
    second[0] = 0; /* the first byte of member 2 zeroed (issue 21): the JDK reader's quiet end */
    Path trace = dir.resolve("trace-pid1061.jsonl.gz");
    Files.write(trace, first);
    Files.write(trace, second, java.nio.file.StandardOpenOption.APPEND);

    TraceEvents e = new TraceReader().read(trace);
    assertEquals(half, e.count(), "the events of member 1");
    assertTrue(e.damaged());
    assertEquals(trace + ": the compressed stream is damaged after line " + half + " (the bytes after member 1"
        + " (from byte " + first.length + ") are not a gzip member; reading stopped at byte " + first.length + ": "
        + second.length + " of " + (first.length + second.length) + " compressed bytes not read); the events before"
        + " it are kept", e.cutShort().orElseThrow());

    ReplayResult r = TraceReplayer.replay(trace, config(), "host");
    assertTrue(r.damaged());
    assertEquals(half, r.traceEvents());
    assertEquals(0, r.linesSkipped());
  }

  @Test
  void everySkippedLineIsCountedNotOnlyTheListedOnes() throws Exception {
    List<String> lines = new java.util.ArrayList<>(traceLines());
    for (int i = 0; i < 500; i++) {
      lines.add(10 + i * 3, "garbage " + i);
    }
    Path trace = Files.write(dir.resolve("trace-pid1061.jsonl.gz"), gzip(lines));
    TraceEvents e = new TraceReader().read(trace);
    assertEquals(500, e.linesSkipped());
    assertEquals(TraceReader.MAX_PROBLEMS_LISTED + 1, e.problems().size(), "100 listed, then one line for the rest");
    assertEquals(trace + ": 400 more unusable line(s) skipped (500 in all)", e.problems().get(100));
    assertEquals(lines.size() - 500, e.count());
    assertTrue(e.cutShort().isEmpty());
  }

  /**
   * Issue 21: a second init of a live context with nranks -2, rank 99999 and nNodes -1 put those values in every
   * record's header without a word; numbers past the width they are packed into wrapped.
   */
  @Test
  void initsAndDescriptorsOutOfRangeAreReportedNotPlayed() throws Exception {
    logs.expect("WARN", "out of range").expect("WARN", "initialized again").expect("WARN", "is negative");
    io.ncclinspector.testkit.SyntheticTrace t = new io.ncclinspector.testkit.SyntheticTrace().init(1, 0x5, 0, 2);
    t.raw("{\"t\":1,\"wall\":1,\"ev\":\"init\",\"ctx\":1,\"commId\":\"0x5\",\"commName\":\"c\",\"nNodes\":-1,"
        + "\"nranks\":-2,\"rank\":99999}");                                                   /* line 2 */
    t.raw("{\"t\":1,\"wall\":1,\"ev\":\"init\",\"ctx\":1,\"commId\":\"0x5\",\"commName\":\"c\",\"nNodes\":1,"
        + "\"nranks\":4,\"rank\":3}");                                                        /* line 3 */
    t.raw("{\"t\":1,\"wall\":1,\"ev\":\"init\",\"ctx\":2,\"commId\":\"0x6\",\"commName\":\"c\",\"nNodes\":3,"
        + "\"nranks\":2,\"rank\":0}");                                                        /* line 4 */
    t.raw("{\"t\":1,\"wall\":1,\"ev\":\"init\",\"ctx\":3,\"commId\":\"0x7\",\"commName\":\"c\",\"nNodes\":1,"
        + "\"nranks\":2,\"rank\":2}");                                                        /* line 5 */
    t.raw("{\"t\":1,\"wall\":1,\"ev\":\"start\",\"ctx\":1,\"h\":90,\"type\":\"Coll\",\"parent\":0,\"rank\":0,"
        + "\"seq\":9,\"func\":\"AllReduce\",\"count\":1,\"nChannels\":300}");                     /* line 6 */
    t.raw("{\"t\":1,\"wall\":1,\"ev\":\"start\",\"ctx\":1,\"h\":91,\"type\":\"P2p\",\"parent\":0,\"rank\":0,"
        + "\"func\":\"Send\",\"count\":-4,\"peer\":1}");                                          /* line 7 */
    int h = t.coll(1, "AllReduce", 0, 1024, "ncclFloat32", 1);
    int k = t.kernelChannel(1, h, 0, 5_000_000);
    t.kernelChannelDone(k, 5_020_000).stop(h).fini(1);
    t.init(1, 0x8, 1, 2).fini(1); /* a context id used again after its fini is a new communicator */
    Path trace = t.write(dir, 7);

    ReplayResult r = TraceReplayer.replay(trace, config(), "host");
    assertEquals(6, r.linesSkipped(), r.problems()::toString);
    List<String> expected = List.of(
        ":2: \"nranks\" -2 out of range 0..16777216",
        ":3: \"ctx\" 1 initialized again (first on line 1, no fini since)",
        ":4: \"nNodes\" 3 out of range 0..2",
        ":5: \"rank\" 2 out of range 0..1",
        ":6: \"nChannels\" 300 out of range 0..255",
        ":7: \"count\" -4 is negative");
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(trace + expected.get(i) + ", skipped", r.problems().get(i));
    }
    assertEquals(1, r.recordsWritten());
    com.fasterxml.jackson.databind.JsonNode header = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(Files.readAllLines(r.outputFile().orElseThrow()).get(0)).get("header");
    assertEquals(0, header.get("rank").asInt());
    assertEquals(2, header.get("n_ranks").asInt());
    assertEquals(2, header.get("nnodes").asInt());
  }
}
