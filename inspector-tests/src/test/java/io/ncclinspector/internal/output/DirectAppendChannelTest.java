package io.ncclinspector.internal.output;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.replay.ReplayResult;
import io.ncclinspector.replay.TraceReplayer;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JSON files written with O_DIRECT ({@link DirectAppendChannel}): after every write the file
 * holds the bytes accepted and at most a block's padding of newlines, and exactly those bytes once
 * settled or closed, whatever the sizes and cuts; a directory that does not take
 * O_DIRECT gets the plain channel; a replay writes the same files either way.
 */
class DirectAppendChannelTest {
  @TempDir Path dir;

  @AfterEach
  void unsetPlugin() {
    ProfilerTableDriver.setenv("NCCL_PROFILER_PLUGIN", "");
  }

  /** The channel the JSON files get here: O_DIRECT where the directory takes it (the plain one
   * elsewhere, which must hold the same bytes). */
  private OutputChannel direct(String name) throws IOException {
    return OutputFileSystem.localDirect().createNew(dir.resolve(name));
  }

  /** Writes all of {@code bytes} as AccountedFile does: until the buffer is drained. */
  private static void writeAll(OutputChannel ch, byte[] bytes) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }

  private static byte[] lines(Random random, int length) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = random.nextInt(40) == 0 ? (byte) '\n' : (byte) ('a' + random.nextInt(26));
    }
    return b;
  }

  @Test
  void theFileHoldsExactlyWhatWasWrittenAtEverySize() throws IOException {
    OutputChannel ch = direct("sizes.log");
    Random random = new Random(42);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    int[] special = {1, 4095, 4096, 4097, 8191, 1 << 20, (3 << 20) + 17}; /* around blocks; over one write */
    for (int i = 0; i < 400; i++) {
      int length = i < special.length ? special[i] : 1 + random.nextInt(i % 3 == 0 ? 300_000 : 9_000);
      byte[] b = lines(random, length);
      writeAll(ch, b);
      expected.write(b);
      assertEquals(expected.size(), ch.size());
      if (i % 40 == 0 || i < special.length) {
        assertPadded(expected.toByteArray(), Files.readAllBytes(dir.resolve("sizes.log")), "after write " + i);
        if (i % 80 == 0) {
          ch.settle();
          assertArrayEquals(expected.toByteArray(), Files.readAllBytes(dir.resolve("sizes.log")), "settled " + i);
        }
      }
    }
    ch.close();
    assertArrayEquals(expected.toByteArray(), Files.readAllBytes(dir.resolve("sizes.log")), "closed");
  }

  /**
   * Between a write and the next settle the file holds the bytes accepted, then newlines up to the
   * end of its block at most.
   */
  private static void assertPadded(byte[] expected, byte[] file, String when) {
    assertTrue(file.length >= expected.length && file.length - expected.length < 4096
        && (file.length == expected.length || file.length % 512 == 0), when + ": " + file.length + " bytes for "
        + expected.length);
    assertArrayEquals(expected, Arrays.copyOf(file, expected.length), when);
    for (int i = expected.length; i < file.length; i++) {
      assertEquals('\n', file[i], when + ": padding at " + i);
    }
  }

  @Test
  void writingGoesOnWhereACutLeftTheFile() throws IOException {
    OutputChannel ch = direct("cut.log");
    Random random = new Random(7);
    byte[] first = lines(random, 10_000);
    writeAll(ch, first);
    for (long cut : new long[] {9_999, 8_192, 4_500, 4_096, 0}) {
      ch.truncate(cut);
      assertEquals(cut, ch.size());
      byte[] more = lines(random, 3_000 + (int) cut % 1_000);
      writeAll(ch, more);
      byte[] want = Arrays.copyOf(Arrays.copyOf(first, (int) cut), (int) cut + more.length);
      System.arraycopy(more, 0, want, (int) cut, more.length);
      assertPadded(want, Files.readAllBytes(dir.resolve("cut.log")), "after a cut at " + cut);
      first = want;
    }
    ch.close();
    assertArrayEquals(first, Files.readAllBytes(dir.resolve("cut.log")), "closed");
  }

  @Test
  void aFileEndsAtItsLastLineAfterEveryFlush() throws IOException {
    /* Writes of the file's own size (1 MiB with O_DIRECT) leave padding; every flush cuts it. */
    OutputFileSystem fs = OutputFileSystem.localDirect();
    AccountedFile f = new AccountedFile(fs, new FileNames(dir, "flushed", ".log"), "flushed", fs.writeBytes(),
        8 << 20, 1_000_000_000L, System::nanoTime);
    Random random = new Random(3);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    for (int round = 0; round < 6; round++) {
      for (int i = 0; i < 3_000; i++) {
        byte[] line = ("round " + round + " line " + i + " " + "x".repeat(random.nextInt(700)) + "\n")
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        f.stream().write(line);
        f.endUnit(1);
        expected.write(line);
      }
      f.flush();
      assertArrayEquals(expected.toByteArray(), Files.readAllBytes(f.path().orElseThrow()), "round " + round);
    }
    assertEquals(18_000, f.written());
    f.close();
    assertArrayEquals(expected.toByteArray(), Files.readAllBytes(dir.resolve("flushed.log")));
  }

  @Test
  void theProbeLeavesNothingBehind() throws IOException {
    OutputChannel ch = OutputFileSystem.localDirect().createNew(dir.resolve("only.log"));
    writeAll(ch, "{}\n".getBytes());
    ch.close();
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(List.of("only.log"), files.map(p -> p.getFileName().toString()).collect(Collectors.toList()));
    }
  }

  @Test
  void aDirectoryWithoutODirectGetsThePlainChannel() throws IOException {
    Path plain = Files.createDirectory(dir.resolve("plain"));
    OutputFileSystem.DirectLocal.INSTANCE.takeAsPlain(plain);
    OutputChannel ch = OutputFileSystem.localDirect().createNew(plain.resolve("plain.log"));
    assertFalse(ch instanceof DirectAppendChannel);
    writeAll(ch, "{\"a\":1}\n".getBytes());
    ch.close();
    assertEquals("{\"a\":1}\n", Files.readString(plain.resolve("plain.log")));
  }

  @Test
  void onTmpfsEitherWayTheFileIsRightAndNoProbeIsLeft() throws IOException {
    Path shm = Path.of("/dev/shm");
    assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm) && "tmpfs".equals(Files.getFileStore(shm).type()),
        "no tmpfs at /dev/shm");
    /* tmpfs refuses O_DIRECT before Linux 6.6 (after creating the file) and takes it since. */
    Path sub = Files.createTempDirectory(shm, "nccl-inspector-direct-test");
    try {
      OutputChannel ch = OutputFileSystem.localDirect().createNew(sub.resolve("shm.log"));
      Random random = new Random(3);
      ByteArrayOutputStream expected = new ByteArrayOutputStream();
      for (int i = 0; i < 50; i++) {
        byte[] b = lines(random, 1 + random.nextInt(20_000));
        writeAll(ch, b);
        expected.write(b);
      }
      ch.close();
      assertArrayEquals(expected.toByteArray(), Files.readAllBytes(sub.resolve("shm.log")));
      try (Stream<Path> files = Files.list(sub)) {
        assertEquals(1, files.count());
      }
    } finally {
      try (Stream<Path> files = Files.list(sub)) {
        for (Path p : files.collect(Collectors.toList())) {
          Files.delete(p);
        }
      }
      Files.delete(sub);
    }
  }

  @Test
  void aReplayWritesTheSameFilesWithAndWithoutODirect() throws Exception {
    Path trace = dir.resolve("trace-pid1640.jsonl.gz");
    try (InputStream in = Objects.requireNonNull(getClass().getResourceAsStream("/h200-benchmark/trace-pid1640.jsonl.gz"))) {
      Files.copy(in, trace);
    }
    byte[][] outputs = new byte[2][];
    for (int direct = 0; direct < 2; direct++) {
      Path out = dir.resolve("out" + direct);
      ReplayResult r = TraceReplayer.replay(trace, InspectorConfig.builder().dumpDirectory(out).minMessageBytes(0)
          .directIo(direct == 1).build(), "vm");
      assertTrue(r.complete());
      /* The time each line was written differs; nothing else may. */
      outputs[direct] = Files.readString(r.outputFile().orElseThrow()).replaceAll("\"dump_timestamp_us\":[0-9]+", "")
          .getBytes();
      assertTrue(outputs[direct].length > 100_000, "a replay of some size: " + outputs[direct].length);
    }
    assertArrayEquals(outputs[0], outputs[1]);
  }
}
