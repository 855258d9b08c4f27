package io.ncclinspector.report.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LineCheckTest {
  static final String OURS = "{\"header\":{\"id\":\"0xb8f4ef99b0e2c17c\",\"comm_name\":\"unknown\","
      + "\"rank\":0,\"n_ranks\":3,\"nnodes\":3},\"metadata\":{\"inspector_output_format_version\":"
      + "\"v4.0\",\"git_rev\":\"x\",\"rec_mechanism\":\"nccl_profiler_interface\","
      + "\"dump_timestamp_us\":1795950080783934,\"hostname\":\"replay\",\"pid\":1061,"
      + "\"profiler_interface_version\":5},\"coll_perf\":{\"coll\":\"AllReduce\",\"coll_sn\":0,"
      + "\"coll_msg_size_bytes\":8192,\"coll_exec_time_us\":6785,\"coll_timing_source\":"
      + "\"kernel_gpu\",\"coll_algobw_gbs\":0.001207,\"coll_busbw_gbs\":0.001610,"
      + "\"coll_exec_time_ns\":6785696,\"coll_flags\":[\"flushed\"],\"event_trace_sn\":"
      + "{\"coll_start_sn\":1,\"kernel_events\":[{\"channel_id\":0}]}}}";
  static final String REFERENCE_UINT8 = "{\"header\":{\"id\":\"0x7f09d3fb8679e9\",\"comm_name\":"
      + "\"unknown\",\"rank\":0,\"n_ranks\":2,\"nnodes\":2},\"metadata\":{\"hostname\":\"vm\","
      + "\"pid\":591},\"coll_perf\":{\"coll\":\"AllReduce\",\"coll_sn\":0,"
      + "\"coll_msg_size_bytes\":18446744073709550616,\"coll_exec_time_us\":4519,"
      + "\"coll_timing_source\":\"kernel_gpu\",\"coll_algobw_gbs\":4082041175859.604980}}";
  static final String P2P = "{\"header\":{\"id\":\"0x1\",\"comm_name\":\"\",\"rank\":1,"
      + "\"n_ranks\":2,\"nnodes\":1},\"p2p_perf\":{\"p2p\":\"Send\",\"p2p_sn\":3,\"p2p_peer\":0,"
      + "\"p2p_msg_size_bytes\":4096,\"p2p_exec_time_us\":5,\"p2p_timing_source\":\"kernel_gpu\"}}";

  static String check(String text) {
    byte[] b = text.getBytes(StandardCharsets.UTF_8);
    return LineCheck.check(new LineReader.Line(1, b, 0, b.length, false, false));
  }

  @Test
  void acceptsBothProducersRecordsAndPointToPoint() {
    assertNull(check(OURS));
    assertNull(check(REFERENCE_UINT8), "a near-2^64 size is a record, flagged later");
    assertNull(check(P2P));
    assertNull(check("  " + P2P + " \r"), "surrounding whitespace and CR are allowed");
  }

  @Test
  void namesWhatIsWrong() {
    assertTrue(check("garbage {{{").startsWith("not valid JSON: Unrecognized token 'garbage'"));
    assertEquals("truncated line (JSON ends early)", check(OURS.substring(0, 200)));
    assertEquals("not a JSON object", check("[1,2]"));
    assertEquals("not a JSON object", check("42"));
    assertEquals("no header object", check("{\"foo\":1}"));
    assertEquals("header is not an object", check("{\"header\":[1],\"coll_perf\":{}}"));
    assertEquals("header.rank is not an integer",
        check(OURS.replace("\"rank\":0", "\"rank\":\"x\"")));
    assertEquals("header.n_ranks missing", check(OURS.replace("\"n_ranks\":3,", "")));
    assertEquals("header.id missing", check(OURS.replace("\"id\":\"0xb8f4ef99b0e2c17c\",", "")));
    assertEquals("neither coll_perf nor p2p_perf (not an operation record)",
        check(OURS.substring(0, OURS.indexOf(",\"coll_perf\"")) + "}"));
    assertEquals("both coll_perf and p2p_perf",
        check(OURS.substring(0, OURS.length() - 1) + ",\"p2p_perf\":{}}"));
    assertEquals("coll_perf.coll_sn is not an integer",
        check(OURS.replace("\"coll_sn\":0", "\"coll_sn\":[0]")));
    assertEquals("coll_perf.coll_exec_time_us missing",
        check(OURS.replace("\"coll_exec_time_us\":6785,", "")));
    assertEquals("p2p_perf.p2p_timing_source missing",
        check(P2P.replace(",\"p2p_timing_source\":\"kernel_gpu\"", "")));
    assertEquals("text after the JSON object", check(P2P + " x"));
    assertEquals("header.rank is out of the range of a signed 32-bit integer",
        check(OURS.replace("\"rank\":0", "\"rank\":99999999999")));
  }

  /** Issue 21: wrong JSON types were read as DuckDB converts them ("0" as 0, true as 1). */
  @Test
  void everyKnownFieldMustHoldItsOwnJsonType() {
    assertEquals("header.rank is not an integer",
        check(OURS.replace("\"rank\":0", "\"rank\":\"0\"")), "a numeric string");
    assertEquals("header.rank is not an integer",
        check(OURS.replace("\"rank\":0", "\"rank\":1.5")), "a fraction");
    assertEquals("header.nnodes is not an integer",
        check(OURS.replace("\"nnodes\":3", "\"nnodes\":3e0")), "an exponent");
    assertEquals("coll_perf.coll_exec_time_us is not an integer",
        check(OURS.replace("\"coll_exec_time_us\":6785", "\"coll_exec_time_us\":true")));
    assertEquals("coll_perf.coll is not a string",
        check(OURS.replace("\"coll\":\"AllReduce\"", "\"coll\":5")));
    assertEquals("header.id is not a string",
        check(OURS.replace("\"id\":\"0xb8f4ef99b0e2c17c\"", "\"id\":12345")));
    assertEquals("coll_perf.coll_busbw_gbs is not a finite number",
        check(OURS.replace("\"coll_busbw_gbs\":0.001610", "\"coll_busbw_gbs\":NaN")));
    assertEquals("coll_perf.coll_algobw_gbs is not a finite number",
        check(OURS.replace("\"coll_algobw_gbs\":0.001207", "\"coll_algobw_gbs\":-Infinity")));
    assertEquals("coll_perf.coll_busbw_gbs is not a finite number",
        check(OURS.replace("\"coll_busbw_gbs\":0.001610", "\"coll_busbw_gbs\":\"fast\"")));
    assertEquals("coll_perf.coll_flags is not a list of strings",
        check(OURS.replace("[\"flushed\"]", "[\"flushed\",7]")));
    assertEquals("coll_perf.event_trace_sn is not an object",
        check(OURS.replace("\"event_trace_sn\":{", "\"event_trace_sn\":5,\"x\":{")));
    assertEquals("metadata.pid is not an integer",
        check(OURS.replace("\"pid\":1061", "\"pid\":\"1061\"")), "optional fields too");
    assertEquals("p2p_perf.p2p_bw_is_upper_bound is not true or false",
        check(P2P.replace("\"p2p_peer\":0", "\"p2p_peer\":0,\"p2p_bw_is_upper_bound\":1")));
  }

  @Test
  void absentNullAndUnknownFieldsAreFine() {
    assertNull(check(OURS.replace("\"coll_perf\":{", "\"p2p_perf\":null,\"coll_perf\":{")),
        "a null perf object counts as absent");
    assertNull(check(OURS.replace("\"comm_name\":\"unknown\"", "\"comm_name\":null")));
    assertNull(check(OURS.replace("\"coll_sn\":0", "\"coll_sn\":0,\"later\":NaN")),
        "fields the format does not know are not read");
    assertNull(check(OURS.replace("\"coll_busbw_gbs\":0.001610", "\"coll_busbw_gbs\":1")),
        "an integer is a number");
    assertNull(check(OURS.replace("\"metadata\":{", "\"metadata\":5,\"x\":{")),
        "a metadata that is no object is absent, as the engines read it");
    assertNull(check(REFERENCE_UINT8.replace("18446744073709550616", "100000000000000000000")),
        "sizes past 64 bits are read (and excluded as implausible)");
  }

  @Test
  void reportsOverlongLinesWithoutParsingThem() {
    byte[] b = "{".getBytes(StandardCharsets.UTF_8);
    assertTrue(LineCheck.check(new LineReader.Line(7, b, 0, 1, true, false))
        .startsWith("line longer than"));
  }
}
