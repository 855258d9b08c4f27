package io.ncclinspector.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Multi-member gzip as the recorder and {@code gzip} write it, read whole; every kind of damage
 * is raised after the data before it, with where it was and, for a corrupt file, what was lost.
 */
class CheckedGzipInputStreamTest {
  private static byte[] gzip(String text) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (GZIPOutputStream g = new GZIPOutputStream(b)) {
      g.write(text.getBytes(StandardCharsets.UTF_8));
    }
    return b.toByteArray();
  }

  private static String lines(int from, int to) {
    StringBuilder b = new StringBuilder();
    for (int i = from; i < to; i++) {
      b.append("{\"line\":").append(i).append(",\"pad\":\"").append(Integer.toHexString(i * 7919))
          .append("\"}\n");
    }
    return b.toString();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      b.writeBytes(p);
    }
    return b.toByteArray();
  }

  /** What a reader got before the damage, and the damage. */
  private record Read(String text, GzipDamageException damage) {}

  private static Read read(byte[] file) throws IOException {
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    try (InputStream in = new CheckedGzipInputStream(new ByteArrayInputStream(file), file.length)) {
      byte[] b = new byte[1000];
      int n;
      while ((n = in.read(b)) >= 0) {
        got.write(b, 0, n);
      }
    } catch (GzipDamageException e) {
      return new Read(got.toString(StandardCharsets.UTF_8), e);
    }
    return new Read(got.toString(StandardCharsets.UTF_8), null);
  }

  @Test
  void readsEveryMemberOfAWholeFile() throws Exception {
    byte[] file = concat(gzip(lines(0, 100)), gzip(lines(100, 300)), gzip(""), gzip(lines(300, 301)));
    Read r = read(file);
    assertEquals(null, r.damage());
    assertEquals(lines(0, 301), r.text());
  }

  @Test
  void aDamagedSecondMemberIsCorruptionNotTheEnd() throws Exception {
    byte[] first = gzip(lines(0, 100));
    byte[] second = gzip(lines(100, 300));
    second[0] = 0; /* what issue 21 did: the first byte of member 2 zeroed */
    byte[] file = concat(first, second);
    // What the JDK's reader does with it: the end of the data, quietly.
    assertEquals(lines(0, 100), new String(new GZIPInputStream(new ByteArrayInputStream(file))
        .readAllBytes(), StandardCharsets.UTF_8));

    Read r = read(file);
    assertEquals(lines(0, 100), r.text(), "everything before the damage");
    assertFalse(r.damage().truncated());
    assertEquals(1, r.damage().member());
    assertEquals(first.length, r.damage().offset());
    assertEquals("gzip data corrupt: the bytes after member 1 (from byte " + first.length
        + ") are not a gzip member; reading stopped at byte " + first.length + ": "
        + second.length + " of " + file.length + " compressed bytes not read",
        r.damage().getMessage());
  }

  @Test
  void corruptDeflateDataIsFoundByTheInflaterOrTheCrc() throws Exception {
    Random random = new Random(21);
    byte[] first = gzip(lines(0, 100));
    for (int trial = 0; trial < 50; trial++) {
      byte[] second = gzip(lines(100, 2000));
      int at = 10 + random.nextInt(second.length - 18); /* inside the deflate data */
      second[at] ^= (byte) (1 + random.nextInt(255));
      Read r = read(concat(first, second));
      assertTrue(r.damage() != null, "a flipped byte at " + at + " is noticed");
      assertFalse(r.damage().truncated());
      assertEquals(2, r.damage().member());
      assertTrue(r.damage().getMessage().startsWith("gzip data corrupt: member 2 (which starts at"
          + " byte " + first.length + ") "), r.damage().getMessage());
      assertTrue(r.text().startsWith(lines(0, 100)), "member 1 is kept");
    }
  }

  @Test
  void aTrailerThatDoesNotMatchIsCorrupt() throws Exception {
    byte[] first = gzip(lines(0, 100));
    first[first.length - 8] ^= 1; /* the CRC */
    Read r = read(concat(first, gzip(lines(100, 200))));
    assertTrue(r.damage().getMessage().contains("member 1 (which starts at byte 0) fails its CRC"
        + " check"), r.damage().getMessage());
    byte[] sized = gzip(lines(0, 100));
    sized[sized.length - 1] ^= 1; /* ISIZE */
    assertTrue(read(sized).damage().getMessage().contains("is not as long as its trailer says"));
  }

  @Test
  void aFileCutShortOrEndingInZerosIsTruncated() throws Exception {
    byte[] whole = concat(gzip(lines(0, 100)), gzip(lines(100, 1000)));
    for (int cut : new int[] {whole.length - 1, whole.length - 8, whole.length / 2, 5}) {
      Read r = read(Arrays.copyOf(whole, cut));
      assertTrue(r.damage().truncated(), cut + ": " + r.damage().getMessage());
      assertTrue(r.damage().getMessage().startsWith("gzip stream ends early (file truncated): "),
          r.damage().getMessage());
      assertTrue(lines(0, 1000).startsWith(r.text()), "a prefix of the data");
    }
    byte[] first = gzip(lines(0, 100));
    Read zeros = read(concat(first, new byte[4096]));
    assertTrue(zeros.damage().truncated());
    assertEquals(lines(0, 100), zeros.text());
    assertEquals("gzip stream ends early (file truncated): member 1 is followed by zero bytes"
        + " from byte " + first.length + " on: the end of the file was never written",
        zeros.damage().getMessage());
  }

  @Test
  void notGzipAtAllAndEmptyAreSaidAtTheHeader() throws Exception {
    CheckedGzipInputStream empty = new CheckedGzipInputStream(new ByteArrayInputStream(new byte[0]));
    GzipDamageException e = assertThrows(GzipDamageException.class, empty::checkHeader);
    assertTrue(e.truncated());
    assertTrue(e.getMessage().contains("the file is empty"), e.getMessage());
    CheckedGzipInputStream text = new CheckedGzipInputStream(
        new ByteArrayInputStream("{\"a\":1}\n".getBytes(StandardCharsets.UTF_8)));
    e = assertThrows(GzipDamageException.class, text::checkHeader);
    assertFalse(e.truncated());
    assertTrue(e.getMessage().contains("not in gzip format"), e.getMessage());
  }

  @Test
  void headerFieldsAreSkippedAndTheHeaderCrcChecked() throws Exception {
    byte[] body = gzip("hello\n");
    // The same member with FEXTRA, FNAME, FCOMMENT and FHCRC set.
    ByteArrayOutputStream h = new ByteArrayOutputStream();
    h.writeBytes(new byte[] {0x1f, (byte) 0x8b, 8, 2 | 4 | 8 | 16, 0, 0, 0, 0, 0, 3});
    h.writeBytes(new byte[] {3, 0, 'x', 'y', 'z'});
    h.writeBytes("name\0".getBytes(StandardCharsets.US_ASCII));
    h.writeBytes("comment\0".getBytes(StandardCharsets.US_ASCII));
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update(h.toByteArray());
    h.write((int) crc.getValue() & 0xff);
    h.write((int) (crc.getValue() >> 8) & 0xff);
    byte[] member = concat(h.toByteArray(), Arrays.copyOfRange(body, 10, body.length));
    assertEquals("hello\nhello\n", read(concat(member, member)).text());
    member[h.size() - 1] ^= 1;
    assertTrue(read(member).damage().getMessage().contains("a header whose CRC does not match"));
    assertArrayEquals("hello\n".getBytes(StandardCharsets.UTF_8),
        new CheckedGzipInputStream(new ByteArrayInputStream(body)).readAllBytes());
  }
}
