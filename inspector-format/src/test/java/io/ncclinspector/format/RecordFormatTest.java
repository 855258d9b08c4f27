package io.ncclinspector.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RecordFormatTest {
  @Test
  void namesAreTheReferencesWithTheKindsPrefix() {
    assertEquals("coll", PerfField.OPERATION.jsonName(RecordKind.COLL));
    assertEquals("p2p_sn", PerfField.SEQUENCE.jsonName(RecordKind.P2P));
    assertEquals("p2p_peer", PerfField.PEER.jsonName(RecordKind.P2P));
    assertEquals("coll_msg_size_bytes", PerfField.MESSAGE_BYTES.jsonName(RecordKind.COLL));
    assertEquals("event_trace_ts", PerfField.EVENT_TRACE_TS.jsonName(RecordKind.P2P));
    assertEquals("coll_start_sn", TraceField.START_SN.jsonName(RecordKind.COLL));
    assertEquals("kernel_events", TraceField.KERNEL_EVENTS.jsonName(RecordKind.P2P));
    assertEquals("coll_perf", PerfField.ALGORITHM.objectName(RecordKind.COLL));
    assertEquals("header", HeaderField.N_RANKS.objectName(RecordKind.P2P));
    assertEquals("inspector_output_format_version", MetadataField.FORMAT_VERSION.jsonName());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PerfField.PEER.jsonName(RecordKind.COLL));
    assertTrue(e.getMessage().contains("coll_perf"), e.getMessage());
  }

  @Test
  void eachObjectHasDistinctNamesAndTheKindsDifferOnlyWhereTheyShould() {
    for (RecordKind k : RecordKind.values()) {
      for (String object : RecordFormat.objects(k)) {
        Set<String> names = new HashSet<>();
        for (RecordField f : RecordFormat.fieldsOf(object)) {
          assertTrue(names.add(f.jsonName(k)), object + " has " + f.jsonName(k) + " twice");
          assertEquals(object, f.objectName(k));
        }
      }
      assertEquals(RecordFormat.fields(k).size(), RecordFormat.objects(k).stream()
          .mapToInt(o -> RecordFormat.fieldsOf(o).size()).sum());
    }
    assertEquals(List.of(PerfField.PEER), PerfField.of(RecordKind.P2P).stream()
        .filter(f -> !f.appliesTo(RecordKind.COLL)).toList());
    assertEquals(List.of(PerfField.ALGORITHM, PerfField.PROTOCOL, PerfField.ROOT, PerfField.NWARPS, PerfField.API_SN),
        PerfField.of(RecordKind.COLL).stream().filter(f -> !f.appliesTo(RecordKind.P2P)).toList());
    assertThrows(IllegalArgumentException.class, () -> RecordFormat.fieldsOf("coll"));
  }
}
