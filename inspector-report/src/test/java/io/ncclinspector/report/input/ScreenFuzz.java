package io.ncclinspector.report.input;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lines for testing {@link LineScreen}: real records of both producers with one or two of their
 * values replaced by tokens of every JSON type (in range and out of it, with and without
 * escapes), fields dropped, doubled or renamed, whitespace added, and lines cut or padded.
 */
public final class ScreenFuzz {
  private ScreenFuzz() {}

  /** Records of both producers and both kinds, as they are written. */
  public static final List<String> SEEDS = List.of(LineCheckTest.OURS,
      LineCheckTest.REFERENCE_UINT8, LineCheckTest.P2P,
      "{\"header\":{\"id\":\"0x044c3cd7f43c661c\",\"comm_name\":\"tp0\",\"rank\":0,\"n_ranks\":8,"
          + "\"nnodes\":1},\"metadata\":{\"inspector_output_format_version\":\"v4.0\",\"git_rev\":"
          + "\"nccl-inspector-jvm-0.1.0-SNAPSHOT\",\"rec_mechanism\":\"nccl_profiler_interface\","
          + "\"dump_timestamp_us\":1795942860000328,\"hostname\":\"node00\",\"pid\":10000,"
          + "\"profiler_interface_version\":5},\"coll_perf\":{\"coll\":\"AllGather\",\"coll_sn\":0,"
          + "\"coll_msg_size_bytes\":4194304,\"coll_exec_time_us\":26,\"coll_timing_source\":"
          + "\"kernel_gpu\",\"coll_algobw_gbs\":161.319385,\"coll_busbw_gbs\":141.154462,"
          + "\"coll_exec_time_ns\":26881,\"coll_algo\":\"RING\",\"coll_proto\":\"SIMPLE\","
          + "\"coll_datatype\":\"ncclFloat32\",\"coll_count\":1048576,\"coll_root\":0,"
          + "\"coll_nchannels\":8,\"coll_channels_seen\":8,\"coll_nwarps\":16,"
          + "\"coll_gpu_start_ns\":1795942860000001489,\"coll_gpu_span_ns\":26881,"
          + "\"coll_gpu_skew_ns\":493,\"coll_step\":0,\"coll_phase\":\"forward\"}}");

  /** Values of every JSON type, some in no field's range, some in no reader's plain form. */
  static final List<String> TOKENS = List.of("0", "-0", "-1", "7", "2147483647", "2147483648",
      "-2147483648", "-2147483649", "9223372036854775807", "9223372036854775808",
      "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
      "18446744073709551616", "99999999999999999999", "012", "1.5", "1.0", "-0.0", "0.0", "1e3",
      "1E+2", "2.5e-10", "-3.25E-07", "1e99", "1e999", "1e100", "NaN", "Infinity", "-Infinity",
      "true", "false", "null", "\"\"", "\"0\"", "\"12\"", "\"true\"", "\"x\"", "\"a\\\"b\"",
      "\"tab\\tx\"", "\"back\\\\slash\"", "\"\\u0041\"", "\"caf\u00e9\"", "\"\u00fcn\u00efc\u00f6d\u00e9 \u2713 \ud83d\ude80\"",
      "\"\\u00e9\"", "\"\\u0001\"", "\"\\u0000\"", "\"\\ud83d\\ude80\"", "\"\\uD7FF\"",
      "\"\\u12\"", "\"\\u00E9x\"", "\"a\\/b\"",
      "\"nl\\nx\"", "\"bad\\qx\"", "[]", "[\"a\"]", "[\"a\",\"b\"]", "[ \"a\" , \"b\" ]",
      "[\"a\\\"q\"]", "[1]", "[\"a\",null]", "[true]", "{}", "{\"k\":[1,{\"z\":null}],\"m\":-2.5e3}",
      "{\"a\":{\"b\":{\"c\":[[],[{}]]}}}", "{\"k\":", "{\"k\":\"v\",\"k\":\"w\"}", "{\"k\":1e400}",
      "123456789012345678901234", "0.1234567890123456789012345678901234567890123", "1.",
      ".5", "-", "+1", "0x10", "1_000", "tru", "nul");

  private static final Pattern PAIR = Pattern.compile(
      "\"([a-z_0-9]+)\":(\"(?:[^\"\\\\]|\\\\.)*\"|-?[0-9][0-9.eE+-]*|true|false|null|\\[[^\\[\\]]*\\])");

  /** {@code n} lines, each a seed with one to three changes, from a fixed seed. */
  public static List<String> lines(long seed, int n) {
    Random r = new Random(seed);
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(changed(SEEDS.get(r.nextInt(SEEDS.size())), r));
    }
    return out;
  }

  /** {@code line} with one to three changes. */
  public static String changed(String line, Random r) {
    int changes = 1 + r.nextInt(3);
    for (int c = 0; c < changes; c++) {
      line = change(line, r);
    }
    return line;
  }

  private static String change(String line, Random r) {
    List<int[]> pairs = new ArrayList<>();
    Matcher m = PAIR.matcher(line);
    while (m.find()) {
      pairs.add(new int[] {m.start(), m.end(), m.start(2), m.end(2), m.start(1), m.end(1)});
    }
    if (pairs.isEmpty()) {
      return line; // cut before its first field
    }
    int[] p = pairs.get(r.nextInt(pairs.size()));
    int what = r.nextInt(100);
    if (what < 60) { // another value
      return line.substring(0, p[2]) + TOKENS.get(r.nextInt(TOKENS.size())) + line.substring(p[3]);
    }
    if (what < 68) { // the field dropped
      int end = p[1] < line.length() && line.charAt(p[1]) == ',' ? p[1] + 1 : p[1];
      int start = end == p[1] && p[0] > 0 && line.charAt(p[0] - 1) == ',' ? p[0] - 1 : p[0];
      return line.substring(0, start) + line.substring(end);
    }
    if (what < 74) { // the field doubled
      return line.substring(0, p[1]) + "," + line.substring(p[0], p[1]) + line.substring(p[1]);
    }
    if (what < 78) { // the field renamed
      return line.substring(0, p[4]) + "x_" + line.substring(p[4]);
    }
    if (what < 88) { // whitespace around the value
      String[] ws = {" ", "\t", "  ", "\r", "\n", "\u00a0"};
      return line.substring(0, p[2]) + ws[r.nextInt(ws.length)] + line.substring(p[2], p[3])
          + ws[r.nextInt(3)] + line.substring(p[3]);
    }
    return switch (r.nextInt(8)) {
      case 0 -> line.substring(0, r.nextInt(line.length())); // cut
      case 1 -> line + "\r";
      case 2 -> "\ufeff" + line;
      case 3 -> line + " ";
      case 4 -> " " + line;
      case 5 -> line + "x";
      case 6 -> line.replace(",\"p2p_perf\"", ",\"coll_perf\"").replace("\"coll_perf\"",
          r.nextBoolean() ? "\"p2p_perf\"" : "\"other\"");
      default -> line.substring(0, line.length() - 1) + ",\"extra\":{}}";
    };
  }

  /** Whether the screen passes the one line (as a file of that line and its newline). */
  public static boolean passes(LineScreen screen, String line) {
    try {
      return screen.passes(new ByteArrayInputStream((line + "\n")
          .getBytes(StandardCharsets.UTF_8)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
