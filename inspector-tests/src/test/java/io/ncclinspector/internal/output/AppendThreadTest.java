package io.ncclinspector.internal.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AppendThreadTest {
  @TempDir
  Path dir;

  private AccountedFile file(OutputFileSystem fs, String stem) {
    return new AccountedFile(fs, new FileNames(dir, stem, ".log"), "test " + stem, 1 << 16, 8 << 20, 1_000_000_000L);
  }

  /** Waits (10 s at most) until the encoder thread waits, and asserts that it does. */
  private static void awaitWaitingForAChunk(Thread encoder) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (encoder.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertEquals(Thread.State.WAITING, encoder.getState(), "the encoder waits for a free chunk");
  }

  /** To file 0's stream, from an encoder thread (the stream's writes do not throw). */
  private static void write(AppendThread append, byte[] bytes) {
    try {
      append.stream(0).write(bytes, 0, bytes.length);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<String> lines(AccountedFile f) throws IOException {
    return f.path().isPresent() ? Files.readAllLines(f.path().get()) : List.of();
  }

  @Test
  void unitsReachTheirFilesWholeAndInOrderFromTheAppendingThread() throws Exception {
    GatedFileSystem fs = new GatedFileSystem();
    AccountedFile a = file(fs, "a");
    AccountedFile b = file(fs, "b");
    AppendThread append = new AppendThread("test-append", List.of(a, b));
    Random random = new Random(7);
    List<List<String>> expected = List.of(new ArrayList<>(), new ArrayList<>());
    int units = 6_000;
    for (int i = 0; i < units; i++) {
      /* mostly short lines, some longer than a whole chunk */
      int length = random.nextInt(50) == 0 ? AppendThread.HANDOFF_BYTES * 2 + random.nextInt(1000) : 1 + random.nextInt(1500);
      char[] text = new char[length];
      Arrays.fill(text, (char) ('a' + i % 26));
      String line = i + ":" + new String(text);
      byte[] bytes = (line + "\n").getBytes(StandardCharsets.US_ASCII);
      int cut = random.nextInt(bytes.length); /* a unit written in two parts */
      int target = random.nextInt(4) == 0 ? 1 : 0;
      append.stream(target).write(bytes, 0, cut);
      append.stream(target).write(bytes, cut, bytes.length - cut);
      append.endUnit(target, 1);
      expected.get(target).add(line);
      if (i == units / 2) {
        append.flush();
        assertEquals(expected.get(0), lines(a), "after flush, every line so far is in its file");
        assertEquals(expected.get(1), lines(b));
        assertEquals(expected.get(0).size(), a.written());
        assertEquals(expected.get(1).size(), b.written());
      }
    }
    append.close();
    append.thread().join(10_000);
    assertFalse(append.thread().isAlive(), "the thread ends at close");
    assertEquals(expected.get(0), lines(a));
    assertEquals(expected.get(1), lines(b));
    assertEquals(units, a.written() + b.written());
    assertEquals(0, a.lost() + b.lost() + append.lost());
    assertEquals(Set.of("test-append"), fs.writers(), "only the appending thread writes");
  }

  @Test
  void unitsAddedTogetherAreHeldLostAndWrittenAsUnitsAddedOneByOne() throws Exception {
    /* Two files on disks that are full, holding at most 10,000 bytes: one gets its units one by
       one, the other in batches; what each holds, loses and finally writes must be the same. */
    QuotaFileSystem diskOne = new QuotaFileSystem(0);
    QuotaFileSystem diskBatch = new QuotaFileSystem(0);
    AccountedFile one = new AccountedFile(diskOne, new FileNames(dir, "one", ".log"), "one", 4096, 10_000, 0L);
    AccountedFile batch = new AccountedFile(diskBatch, new FileNames(dir, "batch", ".log"), "batch", 4096, 10_000, 0L);
    Random random = new Random(11);
    for (int round = 0; round < 40; round++) {
      int count = 1 + random.nextInt(9);
      byte[] data = new byte[count * 2000];
      int[] ends = new int[count];
      int[] items = new int[count];
      int at = 0;
      for (int i = 0; i < count; i++) {
        String line = "round " + round + " unit " + i + " " + "x".repeat(random.nextInt(900)) + "\n";
        byte[] b = line.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(b, 0, data, at, b.length);
        one.stream().write(b);
        one.endUnit(i + 1);
        at += b.length;
        ends[i] = at;
        items[i] = i + 1;
      }
      batch.appendUnits(data, ends, items, count);
      if (round == 20) {
        diskOne.setQuota(6_000); /* part of what is held fits, then the disk is full again */
        diskBatch.setQuota(6_000);
      }
      one.flush();
      batch.flush();
      assertEquals(one.written(), batch.written(), "round " + round);
      assertEquals(one.lost(), batch.lost(), "round " + round);
      assertEquals(one.pending(), batch.pending(), "round " + round);
    }
    assertTrue(one.lost() > 0, "the bound was reached");
    diskOne.setQuota(10_000_000);
    diskBatch.setQuota(10_000_000);
    one.close();
    batch.close();
    assertEquals(one.written(), batch.written());
    assertEquals(one.lost(), batch.lost());
    assertEquals(Files.readAllLines(one.path().orElseThrow()), Files.readAllLines(batch.path().orElseThrow()));
  }

  @Test
  void anEncoderAheadOfAStuckDiskWaitsOnceTheChunksAreInUse() throws Exception {
    /* The disk does not return from its first write: the encoder hands over one chunk per unit
       (each unit fills one) until every chunk there may be is queued or held, then waits; none
       is lost, and all reach the file in order once the disk answers. */
    GatedFileSystem disk = new GatedFileSystem(true);
    AccountedFile a = file(disk, "a");
    AppendThread append = new AppendThread("test-append", List.of(a));
    int units = AppendThread.CHUNKS + 8;
    AtomicInteger ended = new AtomicInteger();
    byte[] body = new byte[AppendThread.HANDOFF_BYTES];
    Thread encoder = new Thread(() -> {
      for (int i = 0; i < units; i++) {
        byte[] head = (i + ":").getBytes(StandardCharsets.US_ASCII);
        Arrays.fill(body, (byte) ('a' + i % 26));
        body[body.length - 1] = '\n';
        write(append, head);
        write(append, body);
        append.endUnit(0, 1);
        ended.incrementAndGet();
      }
    }, "test-encoder");
    encoder.start();
    awaitWaitingForAChunk(encoder);
    /* handed over: the one the appender is stuck in, the queued ones, and the encoder's first */
    int handedOver = ended.get();
    assertTrue(handedOver >= AppendThread.CHUNKS && handedOver <= AppendThread.CHUNKS + 2,
        "units ended before the encoder waited: " + handedOver);
    disk.open();
    encoder.join(10_000);
    assertFalse(encoder.isAlive());
    append.close();
    List<String> lines = lines(a);
    assertEquals(units, lines.size());
    for (int i = 0; i < units; i++) {
      assertTrue(lines.get(i).startsWith(i + ":" + (char) ('a' + i % 26)), "line " + i);
    }
    assertEquals(units, a.written());
    assertEquals(0, a.lost() + append.lost());
  }

  @Test
  void closeLaterLetsAThreadStuckInAWriteFinishWithoutWaitingForIt() throws Exception {
    /* An encoder whose own thread was abandoned asks for the close without waiting: the appending
       thread, stuck in its first write, then appends what it was handed, the units still in the
       encoder's chunk included, closes the file and ends once the disk answers. */
    GatedFileSystem disk = new GatedFileSystem(true);
    AccountedFile a = file(disk, "a");
    AppendThread append = new AppendThread("test-append", List.of(a));
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      String line = i + ":" + "y".repeat(i < 3 ? AppendThread.HANDOFF_BYTES : 100); /* 3 chunks, then small units */
      append.stream(0).write((line + "\n").getBytes(StandardCharsets.US_ASCII));
      append.endUnit(0, 1);
      expected.add(line);
    }
    long t0 = System.nanoTime();
    append.closeLater();
    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(1), "does not wait for the stuck thread");
    Thread.sleep(50);
    assertTrue(append.thread().isAlive(), "still in its write");
    disk.open();
    append.thread().join(10_000);
    assertFalse(append.thread().isAlive(), "ends once the disk answers");
    List<String> got = lines(a);
    assertEquals(expected.size(), got.size(), "lines in the file");
    assertTrue(expected.equals(got), "the lines, in order");
    assertEquals(40, a.written());
    assertEquals(0, a.lost() + append.lost());
  }

  @Test
  void anInterruptedEncoderNeverWaitsAgainAndCloseLaterStillEndsTheThread() throws Exception {
    /* The encoder, interrupted while it waited for a chunk (its sink abandoned), goes on without
       waiting: a chunk made past the bound, a flush that returns at once, then closeLater. The
       thread must end once the disk answers, with every unit written. */
    GatedFileSystem disk = new GatedFileSystem(true);
    AccountedFile a = file(disk, "a");
    AppendThread append = new AppendThread("test-append", List.of(a));
    int units = AppendThread.CHUNKS + 2;
    byte[] body = new byte[AppendThread.HANDOFF_BYTES];
    Arrays.fill(body, (byte) 'z');
    body[body.length - 1] = '\n';
    Thread encoder = new Thread(() -> {
      for (int i = 0; i < units; i++) {
        write(append, body);
        append.endUnit(0, 1);
      }
      append.flush(); /* interrupted: returns at once, its marker left in the queue */
      append.closeLater();
    }, "test-encoder");
    encoder.start();
    awaitWaitingForAChunk(encoder);
    encoder.interrupt();
    encoder.join(10_000);
    assertFalse(encoder.isAlive(), "the interrupted encoder never waits again");
    assertTrue(append.thread().isAlive(), "still in its write");
    disk.open();
    append.thread().join(10_000);
    assertFalse(append.thread().isAlive(), "ends once the disk answers");
    assertEquals(units, a.written());
    assertEquals(units, lines(a).size());
    assertEquals(0, a.lost() + append.lost());
  }

  @Test
  void aUnitForAFileThatIsNotThereIsRefused() {
    AppendThread append = new AppendThread("test-append", List.of(file(new GatedFileSystem(), "a")));
    try {
      assertThrows(IllegalArgumentException.class, () -> append.endUnit(1, 1));
    } finally {
      append.close();
    }
  }
}
