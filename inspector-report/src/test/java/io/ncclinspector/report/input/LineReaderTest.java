package io.ncclinspector.report.input;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ncclinspector.report.TestSupport;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LineReaderTest {
  private static List<String> readAll(LineReader r) throws Exception {
    List<String> out = new ArrayList<>();
    LineReader.Line l;
    while ((l = r.next()) != null) {
      out.add(l.number() + ":" + new String(l.bytes(), l.offset(), l.length(),
          StandardCharsets.UTF_8) + (l.lastWithoutNewline() ? "$" : "") + (l.tooLong() ? "!" : ""));
    }
    return out;
  }

  @Test
  void numbersLinesAndMarksAMissingFinalNewline(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("a.log");
    Files.writeString(f, "a\n\nbb\r\nccc");
    try (LineReader r = LineReader.open(f, Compression.NONE)) {
      assertEquals(List.of("1:a", "2:", "3:bb\r", "4:ccc$"), readAll(r));
    }
  }

  @Test
  void linesLongerThanTheBufferAreReadWhole(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("a.log");
    String big = "x".repeat(300_000);
    Files.writeString(f, "s\n" + big + "\nt\n");
    try (LineReader r = LineReader.open(f, Compression.NONE)) {
      List<String> lines = readAll(r);
      assertEquals(3, lines.size());
      assertEquals("2:" + big, lines.get(1));
      assertEquals("3:t", lines.get(2));
    }
  }

  @Test
  void overlongLinesAreCutAndTheReaderResynchronises(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("a.log");
    Files.writeString(f, "first\n" + "y".repeat(5000) + "\nlast\n");
    try (LineReader r = LineReader.open(f, Compression.NONE, 1000)) {
      LineReader.Line a = r.next();
      assertEquals(1, a.number());
      LineReader.Line b = r.next();
      assertEquals(2, b.number());
      assertTrue(b.tooLong());
      LineReader.Line c = r.next();
      assertEquals(3, c.number());
      assertEquals("last", new String(c.bytes(), c.offset(), c.length(), StandardCharsets.UTF_8));
      assertNull(r.next());
    }
  }

  @Test
  void readsConcatenatedGzipMembers(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream both = new ByteArrayOutputStream();
    for (String part : new String[] {"one\ntwo\n", "three\n"}) {
      ByteArrayOutputStream member = new ByteArrayOutputStream();
      try (GZIPOutputStream gz = new GZIPOutputStream(member)) {
        gz.write(part.getBytes(StandardCharsets.UTF_8));
      }
      both.write(member.toByteArray());
    }
    Path f = dir.resolve("a.log.gz");
    Files.write(f, both.toByteArray());
    try (LineReader r = LineReader.open(f, Compression.GZIP)) {
      assertEquals(List.of("1:one", "2:two", "3:three"), readAll(r));
    }
  }

  @Test
  void aTruncatedGzipStreamYieldsItsLinesThenTheDamage(@TempDir Path dir) throws Exception {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 5000; i++) {
      text.append("{\"line\":").append(i).append(",\"pad\":\"").append(i * 7919L % 104729)
          .append("\"}\n");
    }
    Path whole = dir.resolve("w.gz");
    TestSupport.gzip(whole, text.toString().getBytes(StandardCharsets.UTF_8));
    byte[] gz = Files.readAllBytes(whole);
    Path cut = dir.resolve("cut.log.gz");
    Files.write(cut, Arrays.copyOf(gz, gz.length / 2));
    List<String> seen = new ArrayList<>();
    LineReader.DamagedInputException e;
    try (LineReader r = LineReader.open(cut, Compression.GZIP)) {
      e = assertThrows(LineReader.DamagedInputException.class, () -> {
        LineReader.Line l;
        while ((l = r.next()) != null) {
          seen.add(new String(l.bytes(), l.offset(), l.length(), StandardCharsets.UTF_8)
              + (l.lastWithoutNewline() ? "$" : ""));
        }
      });
    }
    assertTrue(seen.size() > 100 && seen.size() < 5000, "lines before the cut: " + seen.size());
    assertTrue(seen.get(seen.size() - 1).endsWith("$"), "the partial last line is returned");
    assertFalse(seen.get(0).endsWith("$"));
    assertTrue(e.getMessage().startsWith("gzip stream ends early (file truncated) after line "
        + (seen.size() - 1)), e.getMessage());
  }
}
