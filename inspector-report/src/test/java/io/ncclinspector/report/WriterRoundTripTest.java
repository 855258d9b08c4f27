package io.ncclinspector.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.KernelChannelTrace;
import io.ncclinspector.NetworkBreakdown;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.ProcessIdentity;
import io.ncclinspector.Quarantine;
import io.ncclinspector.RecordFlag;
import io.ncclinspector.TimingSource;
import io.ncclinspector.UntimedReason;
import io.ncclinspector.format.KernelEventField;
import io.ncclinspector.format.PerfField;
import io.ncclinspector.format.RecordField;
import io.ncclinspector.format.RecordFormat;
import io.ncclinspector.format.RecordKind;
import io.ncclinspector.format.ProxyOpField;
import io.ncclinspector.format.TraceField;
import io.ncclinspector.internal.JsonLinesWriter;
import io.ncclinspector.report.engine.duckdb.DuckDbEngine;
import io.ncclinspector.report.engine.duckdb.EngineSettings;
import io.ncclinspector.report.ingest.JsonLayout;
import io.ncclinspector.report.ingest.RecordSchema;
import io.ncclinspector.testkit.RecordBuilder;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The core's own writer and the report agree on the record format: records of both kinds, with
 * every optional field and in verbose mode, are written by {@link JsonLinesWriter}; every field
 * written is one the report's JSON layout reads, and its value arrives in the report's export, in
 * the column {@link RecordSchema} says holds it. A field added to the writer and not to the
 * report fails here.
 */
class WriterRoundTripTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long WALL = 1_795_942_870_000_000_000L;
  private static final CommunicatorInfo WORLD = new CommunicatorInfo(1, 0x5eedf00dcafe1234L, "world", 1, 4, 2, 6, 0,
      "GPU-5eed", 23007);
  private static final CommunicatorInfo PAIR = new CommunicatorInfo(2, 0x0123456789abcdefL, "pair", 0, 2, 1, 5, 1,
      "GPU-0123", 22809);

  @TempDir Path tmp;

  /** Records with every option the writer has, and without them. */
  private static List<OperationRecord> records() {
    KernelChannelTrace inStep = new KernelChannelTrace(0, 3, 4, 5, WALL + 10_000, WALL + 11_000, WALL + 12_000,
        7_000_000, 7_250_000);
    KernelChannelTrace lagging = new KernelChannelTrace(5, 6, 7, 8, WALL + 10_500, WALL + 11_500, WALL + 12_500,
        6_000_000, 6_100_000, KernelChannelTrace.Desync.PREDICTED);
    return List.of(
        RecordBuilder.collective(WORLD, "AllReduce").sequence(41).count(1 << 20).datatype("ncclFloat32")
            .messageBytes(4L << 20).algorithm("RING", "SIMPLE").warps(16).channels(2, 2).desyncedChannels(1)
            .timeRecovery(new io.ncclinspector.TimeRecovery(io.ncclinspector.TimeRecovery.Method.RECOVERED, 1, 3,
                "never_delivered", "none"))
            .executionNanos(250_123).algorithmBandwidthGbs(16.77).busBandwidthGbs(25.15).gpu(7_000_000, 250_000, 1_000)
            .startWallNanos(WALL + 9_000).stopWallNanos(WALL + 13_000).launchWallNanos(WALL + 9_500)
            .flags(RecordFlag.EXTRA_CHANNELS, RecordFlag.DESYNC_CHANNELS_EXCLUDED).step(12).phase("backward")
            .trace(1, 2, List.of(inStep, lagging))
            .callNumber(77).network(new NetworkBreakdown(4L << 20, 4L << 20, WALL + 9_600, WALL + 12_900, 80_000,
                2_100_000, 1, 1, WALL + 12_700, 4, 4, List.of(new NetworkBreakdown.ProxyTransfer(1, 0, true, 4, 4, 4,
                    2L << 20, WALL + 9_600, WALL + 9_680, 0, WALL + 12_800, List.of(new NetworkBreakdown.ProxyStep(3,
                        NetworkBreakdown.StepState.DONE, WALL + 9_700, 2_100, 70_000, 15_000, 900_000)))),
                new NetworkBreakdown.StepWaits(61_000, 15_500, 1, 0, true, 3_700_000, 1_100_000, true, 48_000, 9_700,
                    true, 16))).build(),
        RecordBuilder.collective(WORLD, "Broadcast").sequence(42).count(100).datatype("ncclInt8")
            .messageBytes(100).rootOrPeer(3).algorithm("TREE", "LL").warps(8).channels(1, 1).executionNanos(9_000)
            .timingSource(TimingSource.COLLECTIVE_CPU).quarantine(Quarantine.GPU_TIMESTAMP_ZERO)
            .startWallNanos(WALL + 20_000).stopWallNanos(WALL + 29_000).flags(RecordFlag.QUARANTINED)
            .trace(1, 2, List.of()).build(),
        RecordBuilder.collective(WORLD, "Broadcast").sequence(43).count(1 << 20).datatype("ncclFloat32")
            .messageBytes(4L << 20).rootOrPeer(1).algorithm("None", "None").channels(0, 0)
            .timingSource(TimingSource.NONE).untimedReason(UntimedReason.NCCL_BROADCAST_ALLGATHERV)
            .startWallNanos(WALL + 25_000).flags(RecordFlag.NOT_PROFILED_BY_NCCL, RecordFlag.NO_KERNEL_EVENTS)
            .timeRecovery(new io.ncclinspector.TimeRecovery(io.ncclinspector.TimeRecovery.Method.DIRECT, 0, 0, "none",
                "graph"))
            .callNumber(79).build(),
        RecordBuilder.p2p(PAIR, "Send").sequence(7).rootOrPeer(1).count(4096).datatype("ncclBfloat16")
            .messageBytes(8192).channels(1, 1).executionNanos(4_500).algorithmBandwidthGbs(1.82)
            .timeRecovery(new io.ncclinspector.TimeRecovery(io.ncclinspector.TimeRecovery.Method.RECOVERED, 1, 2,
                "slot_reused", "unexpected"))
            .busBandwidthGbs(1.82).gpu(8_000_000, 4_500, 0).startWallNanos(WALL + 30_000)
            .stopWallNanos(WALL + 35_000).flags(RecordFlag.SEND_SIDE_STOP).step(3).phase("forward")
            .trace(1, 2, List.of(inStep)).network(new NetworkBreakdown(8192, 0, WALL + 30_500, WALL + 34_000, 1_500, 0,
                -1, -1, 0, 1, 1, List.of()).withWaits(new NetworkBreakdown.StepWaits(2_200, 2_200, 1, 0, true, 0, 0,
                    false, 3_100, 3_100, true, 1))).build(),
        RecordBuilder.p2p(PAIR, "Recv").sequence(8).rootOrPeer(1).count(4096).datatype("ncclBfloat16")
            .messageBytes(8192).channels(2, 2).desyncedChannels(1).executionNanos(4_700)
            .timingSource(TimingSource.KERNEL_CPU).quarantine(Quarantine.KERNEL_CHANNEL_DESYNC)
            .startWallNanos(WALL + 40_000).stopWallNanos(WALL + 45_000).network(new NetworkBreakdown(0, 8192,
                WALL + 40_500, WALL + 44_800, 0, 3_000, 1, 2, WALL + 44_600, 1, 1, List.of())
                .withWaits(new NetworkBreakdown.StepWaits(0, 0, -1, -1, false, 5_200, 5_200, true, 1_900, 1_900, true,
                    1))).build(),
        RecordBuilder.p2p(PAIR, "Recv").sequence(9).rootOrPeer(1).count(4096).datatype("ncclBfloat16")
            .messageBytes(8192).channels(1, 0).timingSource(TimingSource.NONE)
            .untimedReason(UntimedReason.NCCL_NO_OPERATION_EVENT).startWallNanos(WALL + 50_000).build());
  }

  /** Writes the records, verbose or not, to a log as the core does; returns its lines. */
  private static List<String> write(Path logs, ProcessIdentity process, List<OperationRecord> records,
      boolean verbose) throws Exception {
    Path file = logs.resolve(process.hostname() + "-pid" + process.pid() + ".log");
    try (OutputStream out = Files.newOutputStream(file);
         JsonLinesWriter w = new JsonLinesWriter(out, process, "rev-1", verbose)) {
      long micros = WALL / 1000;
      for (OperationRecord r : records) {
        w.write(r, micros++);
      }
    }
    return Files.readAllLines(file);
  }

  @Test
  void everyFieldTheWriterWritesIsReadByTheReportWithItsValue() throws Exception {
    Path logs = Files.createDirectories(tmp.resolve("logs"));
    List<String> lines = new ArrayList<>(write(logs, new ProcessIdentity("node07", 4242), records(), true));
    lines.addAll(write(logs, new ProcessIdentity("node08", 4243), records().subList(0, 3), false));

    /* 1. Every object and field written is in the report's JSON layout. */
    Map<String, Set<String>> layout = new HashMap<>();
    JsonLayout.PARTS.forEach(p -> layout.put(p.name(), new HashSet<>(p.fields().stream()
        .map(JsonLayout.Field::name).toList())));
    Map<RecordKind, Set<RecordField>> written = new HashMap<>();
    for (String line : lines) {
      JsonNode record = JSON.readTree(line);
      RecordKind kind = record.has(RecordKind.COLL.perfObject()) ? RecordKind.COLL : RecordKind.P2P;
      for (Iterator<String> objects = record.fieldNames(); objects.hasNext(); ) {
        String object = objects.next();
        assertTrue(layout.containsKey(object), "an object the report does not read: " + object);
        for (Iterator<String> fields = record.get(object).fieldNames(); fields.hasNext(); ) {
          String field = fields.next();
          assertTrue(layout.get(object).contains(field), "a field the report does not read: " + object + "." + field);
          written.computeIfAbsent(kind, k -> new HashSet<>()).add(RecordFormat.fieldsOf(object).stream()
              .filter(f -> f.jsonName(kind).equals(field)).findFirst().orElseThrow());
        }
      }
      knownTraceFields(record.get(kind.perfObject()), kind);
    }
    for (RecordKind k : RecordKind.values()) {
      assertEquals(new HashSet<>(RecordFormat.fields(k)), written.get(k),
          "these records exercise every field of a " + k + " record (extend them with a new field)");
    }

    /* 2. The report's export holds each written value in the column that holds its field. */
    ReportResult result = TestSupport.report(tmp.resolve("out"), logs.toString());
    Map<String, Map<String, Object>> rows = exportedRows(result);
    assertEquals(lines.size(), rows.size(), "every line is a record of the export");
    Set<String> compared = new HashSet<>();
    for (String line : lines) {
      JsonNode record = JSON.readTree(line);
      RecordKind kind = record.has(RecordKind.COLL.perfObject()) ? RecordKind.COLL : RecordKind.P2P;
      JsonNode perf = record.get(kind.perfObject());
      Map<String, Object> row = rows.get(key(record.get("metadata").get("hostname").asText(), kind.name(),
          perf.get(PerfField.SEQUENCE.jsonName(kind)).asLong()));
      assertNotNull(row, "no exported row for " + line);
      for (String object : RecordFormat.objects(kind)) {
        for (RecordField f : RecordFormat.fieldsOf(object)) {
          JsonNode value = record.get(object).get(f.jsonName(kind));
          RecordSchema.Column column = RecordSchema.columnOf(f).orElseThrow(
              () -> new AssertionError("no export column holds " + object + "." + f.jsonName(kind)));
          Object exported = row.get(column.name());
          if (value == null) {
            assertEquals(null, exported, column.name() + ": nothing written, nothing exported");
          } else {
            assertSame(f, value, exported, object + "." + f.jsonName(kind) + " -> " + column.name());
            compared.add(column.name());
          }
        }
      }
    }
    assertEquals(RecordSchema.COLUMNS.stream().filter(c -> c.field().isPresent()).map(RecordSchema.Column::name)
        .collect(java.util.stream.Collectors.toSet()), compared, "every column read from a field was compared");
  }

  /** The verbose traces' fields are those of the format (the report keeps the objects as JSON text). */
  private static void knownTraceFields(JsonNode perf, RecordKind kind) {
    for (PerfField traceObject : List.of(PerfField.EVENT_TRACE_SN, PerfField.EVENT_TRACE_TS)) {
      JsonNode trace = perf.get(traceObject.jsonName(kind));
      if (trace == null) {
        continue;
      }
      Set<String> known = new HashSet<>();
      for (TraceField t : TraceField.values()) {
        if (t.in(traceObject)) {
          known.add(t.jsonName(kind));
        }
      }
      trace.fieldNames().forEachRemaining(n -> assertTrue(known.contains(n), "unknown trace field " + n));
      Set<String> channel = new HashSet<>();
      for (KernelEventField k : KernelEventField.values()) {
        if (k.in(traceObject)) {
          channel.add(k.jsonName());
        }
      }
      for (JsonNode ch : trace.get(TraceField.KERNEL_EVENTS.jsonName(kind))) {
        ch.fieldNames().forEachRemaining(n -> assertTrue(channel.contains(n), "unknown channel field " + n));
      }
      Set<String> proxy = new HashSet<>();
      for (ProxyOpField p : ProxyOpField.values()) {
        proxy.add(p.jsonName());
      }
      for (JsonNode op : trace.path(TraceField.PROXY_OPS.jsonName(kind))) {
        op.fieldNames().forEachRemaining(n -> assertTrue(proxy.contains(n), "unknown proxy field " + n));
      }
    }
  }

  private static String key(String host, String kind, long sequence) {
    return host + "/" + kind + "/" + sequence;
  }

  /** The export's rows by host, kind and sequence number, every column as the engine returns it. */
  private Map<String, Map<String, Object>> exportedRows(ReportResult r) throws Exception {
    Map<String, Map<String, Object>> rows = new HashMap<>();
    try (DuckDbEngine e = DuckDbEngine.open(new EngineSettings(1, null, tmp.resolve("reader")))) {
      e.query("SELECT * FROM read_parquet(" + DuckDbEngine.literal(r.recordsDirectory().resolve("*.parquet")
          .toString()) + ")", q -> {
            Map<String, Object> row = new HashMap<>();
            for (RecordSchema.Column c : RecordSchema.COLUMNS) {
              row.put(c.name(), c.type().endsWith("[]") ? q.getList(c.name()) : q.getObject(c.name()));
            }
            rows.put(key((String) row.get("hostname"), ((String) row.get("kind")).toUpperCase(java.util.Locale.ROOT),
                ((Number) row.get("sn")).longValue()), row);
            return null;
          });
    }
    return rows;
  }

  /** A written JSON value and the exported value are the same, for the field's type. */
  private static void assertSame(RecordField f, JsonNode written, Object exported, String what) throws Exception {
    assertNotNull(exported, what + ": written " + written + ", exported null");
    switch (f.type()) {
      case STRING -> assertEquals(written.asText(), exported.toString(), what);
      case INT, LONG -> assertEquals(written.asLong(), ((Number) exported).longValue(), what);
      case UNSIGNED_LONG -> assertEquals(0, written.decimalValue().compareTo(new BigDecimal(exported.toString())),
          what + ": " + written + " vs " + exported);
      case DOUBLE -> assertEquals(written.asDouble(), ((Number) exported).doubleValue(), 0.0, what);
      case BOOLEAN -> assertEquals(written.asBoolean(), exported, what);
      case STRING_LIST -> {
        List<String> w = new ArrayList<>();
        written.forEach(n -> w.add(n.asText()));
        assertEquals(w, ((List<?>) exported).stream().map(Object::toString).toList(), what);
      }
      case OBJECT, OBJECT_LIST -> assertEquals(written, JSON.readTree(exported.toString()), what);
      default -> fail("a type the test does not know: " + f.type());
    }
  }
}
