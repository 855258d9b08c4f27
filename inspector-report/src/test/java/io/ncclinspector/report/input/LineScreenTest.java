package io.ncclinspector.report.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineScreenTest {
  private final LineScreen screen = new LineScreen();

  private boolean passes(String line) {
    return ScreenFuzz.passes(screen, line);
  }

  private boolean passesFile(String content) throws IOException {
    return screen.passes(new ByteArrayInputStream(content.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void passesBothProducersRecordsAsWritten() {
    for (String seed : ScreenFuzz.SEEDS) {
      assertTrue(passes(seed), seed);
      assertNull(LineCheckTest.check(seed));
    }
    assertTrue(passes(LineCheckTest.P2P.replace(":", " : ").replace(",", "\t,  ")),
        "spaces and tabs between tokens");
    assertTrue(passes(LineCheckTest.OURS.replace("\"comm_name\":\"unknown\"",
        "\"comm_name\":\"caf\u00e9 \u2713 \ud83d\ude80 \\u00e9 \\u0001\"")),
        "UTF-8 and escapes other than NUL and surrogate halves");
  }

  @Test
  void refusesWhatTheTypedReaderWouldConvertOrMisread() {
    String ours = LineCheckTest.OURS;
    List<String> refused = List.of(
        ours.replace("\"rank\":0", "\"rank\":\"0\""), // text for an integer: DuckDB reads 0
        ours.replace("\"rank\":0", "\"rank\":true"), // a boolean for an integer: DuckDB reads 1
        ours.replace("\"rank\":0", "\"rank\":1.0"), // a fraction
        ours.replace("\"rank\":0", "\"rank\":1e0"), // an exponent
        ours.replace("\"rank\":0", "\"rank\":2147483648"), // past a 32-bit integer
        ours.replace("\"rank\":0", "\"rank\":null"), // null: absent in the checked reading
        ours.replace("\"rank\":0", "\"rank\":01"), // a leading zero: not JSON
        ours.replace("\"pid\":1061", "\"pid\":9223372036854775808"),
        ours.replace("\"coll_msg_size_bytes\":8192", "\"coll_msg_size_bytes\":18446744073709551616"),
        ours.replace("\"coll_msg_size_bytes\":8192", "\"coll_msg_size_bytes\":-9223372036854775809"),
        ours.replace("\"coll_algobw_gbs\":0.001207", "\"coll_algobw_gbs\":\"0.5\""),
        ours.replace("\"coll_algobw_gbs\":0.001207", "\"coll_algobw_gbs\":1e400"),
        ours.replace("\"coll_algobw_gbs\":0.001207", "\"coll_algobw_gbs\":NaN"),
        ours.replace("\"comm_name\":\"unknown\"", "\"comm_name\":5"), // a number for text
        ours.replace("\"comm_name\":\"unknown\"", "\"comm_name\":\"\\u0000\""), // NUL
        ours.replace("\"comm_name\":\"unknown\"", "\"comm_name\":\"\\ud83d\\ude80\""), // a pair
        ours.replace("\"comm_name\":\"unknown\"", "\"comm_name\":\"\\u00g1\""),
        ours.replace("[\"flushed\"]", "[\"flushed\",1]"), // a list of not only strings
        ours.replace("[\"flushed\"]", "\"flushed\""),
        ours.replace("{\"coll_start_sn\"", "[{\"coll_start_sn\"").replace("}]}}}", "}]}]}}"),
        ours.replace("\"rank\":0", "\"rank\":0,\"rank\":1"), // a field twice
        ours.replace("\"rank\":0", "\"rank\":0,\"future_field\":1"), // a field not known
        ours.replace("\"n_ranks\":3,", ""), // a required field missing
        ours.replace("\"coll_sn\":0,", ""),
        ours.substring(0, ours.length() - 1) + ",\"p2p_perf\":{}}", // both perf objects
        ours.substring(0, ours.indexOf(",\"coll_perf\"")) + "}", // neither
        ours.substring(0, 300), // cut
        ours + "\r", ours + " ", " " + ours, "\ufeff" + ours, ours + "{}", "", "[]");
    for (String line : refused) {
      assertFalse(passes(line), line);
    }
  }

  @Test
  void refusesMalformedUtf8() throws IOException {
    String ours = LineCheckTest.OURS;
    int at = ours.indexOf("unknown");
    byte[][] malformed = {
        {(byte) 0xC3, 0x28}, // a lead byte without its continuation
        {(byte) 0xC0, (byte) 0xAF}, // an overlong '/'
        {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // a surrogate half
        {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // past U+10FFFF
        {(byte) 0xE2, (byte) 0x9C}, // cut short
        {(byte) 0xFF}};
    for (byte[] bad : malformed) {
      byte[] head = ours.substring(0, at).getBytes(StandardCharsets.US_ASCII);
      byte[] tail = (ours.substring(at) + "\n").getBytes(StandardCharsets.US_ASCII);
      byte[] line = new byte[head.length + bad.length + tail.length];
      System.arraycopy(head, 0, line, 0, head.length);
      System.arraycopy(bad, 0, line, head.length, bad.length);
      System.arraycopy(tail, 0, line, head.length + bad.length, tail.length);
      assertFalse(screen.passes(new ByteArrayInputStream(line)), () -> java.util.Arrays.toString(bad));
    }
  }

  /** The property the import rests on: a line the screen passes is one the line check accepts. */
  @Test
  void passesNoLineTheLineCheckRefuses() {
    int passed = 0;
    int refusedByCheck = 0;
    for (String line : ScreenFuzz.lines(1, 20_000)) {
      String reason = LineCheckTest.check(line);
      if (passes(line)) {
        passed++;
        assertNull(reason, () -> "passed by the screen, refused by the line check: " + line);
      } else if (reason != null) {
        refusedByCheck++;
      }
    }
    // The mix has both, in numbers: the test would notice a screen that passes nothing.
    assertTrue(passed > 1_000, "passed " + passed);
    assertTrue(refusedByCheck > 3_000, "refused " + refusedByCheck);
  }

  /** One line at a time (the line scan's use) gives the verdict of a file of that line. */
  @Test
  void passesALineAloneAsItPassesAFileOfIt() {
    LineScreen small = new LineScreen(4096);
    for (String line : ScreenFuzz.lines(3, 5_000)) {
      byte[] b = ("xx" + line + "\nyy").getBytes(StandardCharsets.UTF_8);
      int length = b.length - 5;
      assertEquals(passes(line), line.getBytes(StandardCharsets.UTF_8).length <= 4096
          && small.passesLine(b, 2, length), line);
    }
    byte[] p2p = LineCheckTest.P2P.getBytes(StandardCharsets.UTF_8);
    assertTrue(small.passesLine(p2p, 0, p2p.length), "a line that ends its array");
    assertFalse(small.passesLine(p2p, 0, p2p.length - 1), "a line cut short");
    assertFalse(new LineScreen(64).passesLine(p2p, 0, p2p.length), "longer than the buffer");
  }

  /**
   * The screen keeps each object's last text as a template and passes a like object by reading
   * only the values that differ: after any line, its verdict and the fields it saw are those of
   * a screen that reads the line first. Each fuzzed line (one to three changes) comes right
   * after a record, so that most of it is the template's.
   */
  @Test
  void aLineAfterOthersHasTheVerdictOfALineReadFirst() {
    LineScreen warm = new LineScreen(4096);
    java.util.Random r = new java.util.Random(11);
    int passed = 0;
    for (int i = 0; i < 20_000; i++) {
      String seed = ScreenFuzz.SEEDS.get(r.nextInt(ScreenFuzz.SEEDS.size()));
      assertTrue(ScreenFuzz.passes(warm, seed), seed);
      String line = ScreenFuzz.changed(seed, r);
      LineScreen fresh = new LineScreen(4096);
      boolean expected = ScreenFuzz.passes(fresh, line);
      assertEquals(expected, ScreenFuzz.passes(warm, line), line);
      if (expected) {
        passed++;
        assertEquals(fresh.fieldsSeen(), warm.fieldsSeen(), line);
      }
    }
    assertTrue(passed > 1_000, "passed " + passed);
    // About 115,000 objects read (three a record, two records a round, fewer where one is
    // refused): a third at least passed by a template.
    assertTrue(warm.matched > 40_000, "matched " + warm.matched);
  }

  @Test
  void readsLinesAcrossItsBuffer() throws IOException {
    StringBuilder file = new StringBuilder();
    int n = 0;
    while (file.length() < 3 * LineScreen.BUFFER_BYTES) {
      file.append(ScreenFuzz.SEEDS.get(n++ % ScreenFuzz.SEEDS.size())).append('\n');
    }
    assertTrue(passesFile(file.toString()));
    assertEquals(n, screen.lines());
    assertTrue(passesFile(file.substring(0, file.length() - 1)), "a last line without newline");
    assertEquals(n, screen.lines());
    assertFalse(passesFile(file + LineCheckTest.OURS.replace("\"rank\":0", "\"rank\":\"0\"")),
        "a bad last line, past the first buffers");
    assertFalse(passesFile(file.toString() + "\n"), "a blank line");
    assertTrue(passesFile(""), "an empty file has no line to refuse");
  }

  /**
   * Lines whose values differ from line to line (most of each passed by the template) and whose
   * values change length, across several buffers: every line passes, and one value of the
   * wrong type far into the file is refused.
   */
  @Test
  void readsVaryingLinesAcrossItsBuffer() throws IOException {
    String seed = ScreenFuzz.SEEDS.get(3);
    StringBuilder file = new StringBuilder();
    int n = 0;
    while (file.length() < 3 * LineScreen.BUFFER_BYTES) {
      file.append(seed.replace("\"coll_sn\":0,", "\"coll_sn\":" + n + ",")
          .replace("\"coll_exec_time_ns\":26881", "\"coll_exec_time_ns\":" + (n * 7919L % 100_003))
          .replace("\"comm_name\":\"tp0\"", "\"comm_name\":\"tp" + n % 13 + "\""))
          .append('\n');
      n++;
    }
    assertTrue(file.indexOf("\"comm_name\":\"tp12\"") > 0 && file.indexOf("\"coll_sn\":"
        + (n - 1) + ",") > 0 && file.indexOf("\"coll_exec_time_ns\":7919,") > 0, "values vary");
    long before = screen.matched;
    assertTrue(passesFile(file.toString()));
    assertEquals(n, screen.lines());
    assertTrue(screen.matched - before > 2L * n, "most objects passed by the template");
    int late = file.lastIndexOf("\"coll_sn\":" + (n - 5) + ",");
    String bad = file.substring(0, late) + "\"coll_sn\":\"" + (n - 5) + "\","
        + file.substring(late + ("\"coll_sn\":" + (n - 5) + ",").length());
    assertFalse(passesFile(bad), "a text sequence number, past the first buffers");
  }

  @Test
  void refusesALineLongerThanItsBuffer() throws IOException {
    String big = LineCheckTest.OURS.replace("\"comm_name\":\"unknown\"",
        "\"comm_name\":\"" + "x".repeat(LineScreen.BUFFER_BYTES) + "\"");
    assertNull(LineCheckTest.check(big), "the line check takes it");
    assertFalse(passesFile(LineCheckTest.P2P + "\n" + big + "\n"));
  }

  @Test
  void stopsAtTheFirstRefusedLine() throws IOException {
    byte[] content = (LineCheckTest.P2P + "\n" + "not json\n" + LineCheckTest.P2P + "\n")
        .getBytes(StandardCharsets.UTF_8);
    InputStream in = new ByteArrayInputStream(content);
    assertFalse(screen.passes(in));
    assertEquals(1, screen.lines());
  }
}
