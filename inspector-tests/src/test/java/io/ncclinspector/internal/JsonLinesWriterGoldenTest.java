package io.ncclinspector.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.ncclinspector.CollectiveRecord;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.KernelChannelTrace;
import io.ncclinspector.NetworkBreakdown;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.P2pRecord;
import io.ncclinspector.ProcessIdentity;
import io.ncclinspector.Quarantine;
import io.ncclinspector.RecordFlag;
import io.ncclinspector.Timing;
import io.ncclinspector.TimingSource;
import io.ncclinspector.UntimedReason;
import io.ncclinspector.testkit.RecordBuilder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * The JSON Lines output, byte for byte: a fixed set of records (both kinds, every field and flag,
 * every quarantine reason, untimed reason and timing source, call numbers, names that need
 * escaping, bandwidths at the edges of the six-decimal formatting, communicators renamed under the
 * same serial, every interface version, with and without an NCCL release)
 * written verbose and not, compared with the output the writer produced before its encoding path
 * was reworked for throughput ({@code json-lines/writer-golden.log.gz}).
 *
 * <p>A deliberate change of the format (a new field) changes the expected bytes: write the new
 * expectation with {@code -Djsonlines.golden.update=<path of the .gz under src/test/resources>},
 * check its diff, and commit it.
 */
class JsonLinesWriterGoldenTest {
  /** The kernel-channel states the golden output was made with (HANDED_ON, added since, is written
   * the same way: its JSON name); sampling all of them would change every later random draw. */
  private static final KernelChannelTrace.Desync[] GOLDEN_DESYNC =
      java.util.Arrays.copyOf(KernelChannelTrace.Desync.values(), 4);
  /** The timing sources it was made with (KERNEL_CUPTI, added since, is written by its JSON name too). */
  private static final TimingSource[] GOLDEN_SOURCES = java.util.Arrays.copyOf(TimingSource.values(), 5);
  private static final String GOLDEN = "/json-lines/writer-golden.log.gz";
  private static final long WALL = 1_795_942_870_000_000_000L;

  @Test
  void outputIsByteForByteTheGoldenOne() throws IOException {
    byte[] actual = output();
    String update = System.getProperty("jsonlines.golden.update");
    if (update != null && !update.isBlank()) {
      try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(Path.of(update)))) {
        out.write(actual);
      }
    }
    byte[] expected;
    try (InputStream in = JsonLinesWriterGoldenTest.class.getResourceAsStream(GOLDEN)) {
      if (in == null) {
        fail("no " + GOLDEN + " on the test class path");
        return;
      }
      expected = new GZIPInputStream(in).readAllBytes();
    }
    if (!java.util.Arrays.equals(expected, actual)) {
      String[] e = new String(expected, StandardCharsets.UTF_8).split("\n", -1);
      String[] a = new String(actual, StandardCharsets.UTF_8).split("\n", -1);
      for (int i = 0; i < Math.min(e.length, a.length); i++) {
        assertEquals(e[i], a[i], "line " + (i + 1) + " differs");
      }
      assertEquals(e.length, a.length, "number of lines");
      fail("the bytes differ outside the lines (encoding)");
    }
    assertTrue(expected.length > 100_000, "the golden output covers a few hundred records");
  }

  @Test
  void aForgottenCommunicatorIsWrittenAlikeWhenItComesBack() throws IOException {
    List<OperationRecord> records = records(new Random(24), 40);
    ByteArrayOutputStream kept = new ByteArrayOutputStream();
    ByteArrayOutputStream forgetting = new ByteArrayOutputStream();
    try (JsonLinesWriter a = new JsonLinesWriter(kept, new ProcessIdentity("node07", 1), "rev", true);
         JsonLinesWriter b = new JsonLinesWriter(forgetting, new ProcessIdentity("node07", 1), "rev", true)) {
      for (OperationRecord r : records) {
        a.write(r, WALL / 1000);
        b.write(r, WALL / 1000);
        b.forget(r.communicator().serial()); /* as at its destruction: the header is rendered again */
      }
    }
    assertEquals(kept.toString(StandardCharsets.UTF_8), forgetting.toString(StandardCharsets.UTF_8));
    assertEquals(40, kept.toString(StandardCharsets.UTF_8).split("\n").length);
  }

  /** Both modes, each with its own process identity, as two files would be. */
  private static byte[] output() throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    write(all, new ProcessIdentity("node07", 4242), "rev-1", true, records(new Random(22), 300));
    write(all, new ProcessIdentity("h\u00f6st \"b\"", 7), "rev \"2\"\t\u00e9", false, records(new Random(23), 300));
    return all.toByteArray();
  }

  private static void write(OutputStream to, ProcessIdentity process, String gitRev, boolean verbose,
      List<OperationRecord> records) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (JsonLinesWriter w = new JsonLinesWriter(bytes, process, gitRev, verbose)) {
      long micros = WALL / 1000;
      for (int i = 0; i < records.size(); i++) {
        w.write(records.get(i), micros);
        if (i % 3 != 0) {
          micros += i % 5 == 0 ? 1_000_000 : 7; /* some records share a dump time */
        }
        if (i % 50 == 0) {
          w.flush();
        }
      }
    }
    to.write(bytes.toByteArray());
  }

  private static final String[] COLLECTIVES = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce",
      "AlltoAll", "AllGatherV", "Odd\"Op"};
  private static final String[] P2P = {"Send", "Recv"};
  private static final String[] DATATYPES = {"ncclInt8", "ncclFloat32", "ncclBfloat16", "ncclFloat64", "Unknown"};
  private static final String[] ALGORITHMS = {"RING", "TREE", "NVLS", "COLLNET_DIRECT", "PAT"};
  private static final String[] PROTOCOLS = {"LL", "LL128", "SIMPLE"};
  private static final String[] PHASES = {null, null, "forward", "backward", "opt\u00efmizer \"step\"\n"};
  private static final double[] BANDWIDTHS = {0.0, -0.0, 1e-7, 4.999999e-7, 5e-7, 0.0000015, 123.4567895,
      25.15, 16.77, 8.999999999999e12, 9.0e12, 1e15, -3.25, Double.NaN, Double.POSITIVE_INFINITY,
      Double.NEGATIVE_INFINITY, 1.0 / 3.0, 99999.9999995};
  private static final long[] EXEC_NANOS = {0, 1, 999, 1000, 1001, 250_123, 4_500, 1_000_000_000_000L,
      Long.MAX_VALUE};

  private static List<CommunicatorInfo> communicators() {
    List<CommunicatorInfo> c = new ArrayList<>();
    c.add(new CommunicatorInfo(1, 0x5eedf00dcafe1234L, "world", 1, 4, 2, 5));
    c.add(new CommunicatorInfo(2, 0x0123456789abcdefL, "pair", 0, 2, 1, 4));
    c.add(new CommunicatorInfo(3, -1L, CommunicatorInfo.UNKNOWN_NAME, 0, 1, 1, 1));
    c.add(new CommunicatorInfo(4, 0x8000000000000000L, "quote \" back \\ tab \t nl \n ctl \u0001", 3, 8, 2, 2));
    c.add(new CommunicatorInfo(5, 42, "\u00fcn\u00efc\u00f6d\u00e9 \u2713 \ud83d\ude80", 7, 16, 4, 3, 0,
        "GPU-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"));
    c.add(new CommunicatorInfo(6, 0, "", 0, 3, 3, 6));
    c.add(new CommunicatorInfo(7, 0x77, "with-release", 2, 4, 1, 6, 3, "GPU-77", 23007)); /* NCCL 2.30.7 */
    c.add(new CommunicatorInfo(8, 0x88, "old-release", 0, 2, 1, 4, 1, "GPU-88", 20800)); /* before 2.9: none */
    return c;
  }

  private static List<OperationRecord> records(Random rnd, int n) {
    List<CommunicatorInfo> comms = communicators();
    List<OperationRecord> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (i == n / 2) {
        /* the same serial, now with another name and interface version: a new header */
        comms.set(0, new CommunicatorInfo(1, 0x5eedf00dcafe1234L, "world-renamed", 1, 4, 2, 6));
      }
      CommunicatorInfo comm = comms.get(rnd.nextInt(comms.size()));
      boolean collective = rnd.nextInt(3) != 0;
      RecordBuilder b = collective
          ? RecordBuilder.collective(comm, pick(rnd, COLLECTIVES))
              .algorithm(pick(rnd, ALGORITHMS), pick(rnd, PROTOCOLS)).warps(rnd.nextInt(33))
              .rootOrPeer(rnd.nextInt(5) - 1)
          : RecordBuilder.p2p(comm, pick(rnd, P2P)).rootOrPeer(rnd.nextInt(17) - 1);
      long bytes = rnd.nextInt(4) == 0 ? 0 : 1L << rnd.nextInt(40);
      b.sequence(rnd.nextInt(10) == 0 ? Long.MAX_VALUE - rnd.nextInt(3) : rnd.nextInt(1_000_000))
          .messageBytes(bytes).count(rnd.nextInt(5) == 0 ? bytes : bytes / 4).datatype(pick(rnd, DATATYPES))
          .channels(rnd.nextInt(65), rnd.nextInt(65)).desyncedChannels(rnd.nextInt(4) == 0 ? rnd.nextInt(4) : 0)
          .executionNanos(rnd.nextBoolean() ? EXEC_NANOS[rnd.nextInt(EXEC_NANOS.length)] : rnd.nextInt(1 << 30))
          .timingSource(pick(rnd, GOLDEN_SOURCES))
          .quarantine(rnd.nextInt(3) == 0 ? pick(rnd, Quarantine.values()) : Quarantine.NONE)
          .algorithmBandwidthGbs(bandwidth(rnd)).busBandwidthGbs(bandwidth(rnd))
          .startWallNanos(WALL + rnd.nextInt(1 << 30)).stopWallNanos(WALL + rnd.nextInt(1 << 30))
          .launchWallNanos(rnd.nextBoolean() ? 0 : WALL + rnd.nextInt(1 << 30));
      if (rnd.nextBoolean()) {
        b.gpu(rnd.nextLong() >>> 8, rnd.nextInt(1 << 20), rnd.nextInt(3) == 0 ? -rnd.nextInt(100) : rnd.nextInt(9999));
      }
      if (rnd.nextBoolean()) {
        b.step(rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(1 << 20) + (rnd.nextInt(5) == 0 ? 1L << 40 : 0));
      }
      String phase = pick(rnd, PHASES);
      if (phase != null) {
        b.phase(phase);
      }
      List<RecordFlag> flags = new ArrayList<>();
      for (RecordFlag f : RecordFlag.values()) {
        if (rnd.nextInt(5) == 0) {
          flags.add(f);
        }
      }
      b.flags(flags.toArray(RecordFlag[]::new));
      List<KernelChannelTrace> channels = new ArrayList<>();
      int nch = rnd.nextInt(5);
      for (int c = 0; c < nch; c++) {
        long start = WALL + rnd.nextInt(1 << 30);
        channels.add(new KernelChannelTrace(rnd.nextInt(64), rnd.nextInt(100), rnd.nextInt(100), rnd.nextInt(100),
            start, start + rnd.nextInt(99_999), start + rnd.nextInt(999_999), rnd.nextLong() >>> 12,
            rnd.nextLong() >>> 12, pick(rnd, GOLDEN_DESYNC)));
      }
      b.trace(rnd.nextInt(70_000), rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(70_000), channels);
      if (rnd.nextInt(3) == 0) {
        b.network(network(rnd));
      }
      out.add(withCallAndUntimedReason(b.build(), rnd));
    }
    return out;
  }

  /** A network breakdown: sometimes with a proxy operation that never finished, or no receive. */
  private static NetworkBreakdown network(Random rnd) {
    List<NetworkBreakdown.ProxyTransfer> transfers = new ArrayList<>();
    int n = rnd.nextInt(4);
    for (int i = 0; i < n; i++) {
      long post = WALL + rnd.nextInt(1 << 30);
      transfers.add(new NetworkBreakdown.ProxyTransfer(rnd.nextInt(64), rnd.nextInt(64), rnd.nextBoolean(),
          rnd.nextInt(9), rnd.nextInt(9), rnd.nextInt(9), rnd.nextInt(1 << 24), post, post + rnd.nextInt(99_999),
          rnd.nextBoolean() ? 0 : post + rnd.nextInt(999_999), rnd.nextInt(4) == 0 ? 0 : post + rnd.nextInt(9_999_999)));
    }
    long post = WALL + rnd.nextInt(1 << 30);
    boolean received = rnd.nextBoolean();
    NetworkBreakdown breakdown = new NetworkBreakdown(rnd.nextInt(1 << 26), received ? rnd.nextInt(1 << 26) : 0, post,
        rnd.nextInt(4) == 0 ? 0 : post + rnd.nextInt(99_999_999), rnd.nextInt(9_999_999),
        received ? rnd.nextInt(9_999_999) : 0, received ? rnd.nextInt(64) : -1, received ? rnd.nextInt(64) : -1,
        received ? post + rnd.nextInt(99_999_999) : 0, 1 + rnd.nextInt(40), 1 + rnd.nextInt(15), transfers);
    return withStepWaits(breakdown, new Random(post));
  }

  /**
   * The waits inside the steps and the steps of each proxy operation (issue 23's second part),
   * drawn from their own generator so that the fields before them stay as they were: each sum
   * known or not (left out), steps shown in full, cut short, or not at all.
   */
  private static NetworkBreakdown withStepWaits(NetworkBreakdown n, Random w) {
    if (w.nextInt(4) == 0) {
      return n; /* no waits measured (a breakdown made by an older core) */
    }
    List<NetworkBreakdown.ProxyTransfer> transfers = new ArrayList<>();
    for (NetworkBreakdown.ProxyTransfer t : n.transfers()) {
      List<NetworkBreakdown.ProxyStep> steps = new ArrayList<>();
      int shown = w.nextInt(3) == 0 ? 0 : (int) Math.min(t.steps(), 1 + w.nextInt(8));
      for (int i = 0; i < shown; i++) {
        steps.add(new NetworkBreakdown.ProxyStep(t.steps() - shown + i, pick(w, NetworkBreakdown.StepState.values()),
            t.firstPostWallNanos() + w.nextInt(99_999), w.nextInt(9_999), w.nextInt(999_999), w.nextInt(99_999),
            w.nextInt(4) == 0 ? 4_294_967_295L : w.nextInt(999_999)));
      }
      transfers.add(new NetworkBreakdown.ProxyTransfer(t.peer(), t.channel(), t.send(), t.steps(), t.stepsDone(),
          t.announcedSteps(), t.bytes(), t.firstPostWallNanos(), t.firstReadyWallNanos(), t.lastReadyWallNanos(),
          t.doneWallNanos(), steps));
    }
    boolean peerWait = w.nextBoolean();
    boolean flush = w.nextBoolean();
    boolean lag = w.nextInt(5) != 0;
    NetworkBreakdown.StepWaits waits = new NetworkBreakdown.StepWaits(peerWait ? w.nextInt(9_999_999) : 0,
        peerWait ? w.nextInt(999_999) : 0, peerWait ? w.nextInt(64) : -1, peerWait ? w.nextInt(64) : -1, peerWait,
        flush ? w.nextInt(9_999_999) : 0, flush ? w.nextInt(999_999) : 0, flush, lag ? w.nextInt(9_999_999) : 0,
        lag ? w.nextInt(999_999) : 0, lag, 1 + w.nextInt(200));
    return new NetworkBreakdown(n.bytesSent(), n.bytesReceived(), n.firstPostWallNanos(), n.lastDoneWallNanos(),
        n.sendGpuWaitNanos(), n.receiveWaitNanos(), n.slowestPeer(), n.slowestChannel(), n.lastArrivalWallNanos(),
        n.proxyOperations(), n.proxyOperationsTracked(), transfers, waits);
  }

  /** The fields the builder does not set: a collective's call number, an untimed reason. */
  private static OperationRecord withCallAndUntimedReason(OperationRecord r, Random rnd) {
    Timing t = r.timing();
    Timing timing = new Timing(t.executionNanos(), t.source(), t.quarantine(), t.gpuStartNanos(), t.gpuSpanNanos(),
        t.gpuSkewNanos(), t.startWallNanos(), t.stopWallNanos(), t.launchWallNanos(),
        rnd.nextInt(4) == 0 ? pick(rnd, UntimedReason.values()) : UntimedReason.NONE);
    if (r instanceof CollectiveRecord c) {
      long call = rnd.nextInt(3) == 0 ? CollectiveRecord.CALL_NUMBER_UNKNOWN
          : rnd.nextInt(5) == 0 ? 0xffffffffL - rnd.nextInt(3) : rnd.nextInt(100_000);
      return new CollectiveRecord(c.communicator(), c.operation(), c.sequence(), c.root(), c.algorithm(),
          c.transfer(), timing, c.channels(), c.tags(), c.flags(), c.trace(), call, c.network());
    }
    P2pRecord p = (P2pRecord) r;
    return new P2pRecord(p.communicator(), p.operation(), p.sequence(), p.peer(), p.transfer(), timing, p.channels(),
        p.tags(), p.flags(), p.trace(), p.network());
  }

  private static double bandwidth(Random rnd) {
    return rnd.nextBoolean() ? BANDWIDTHS[rnd.nextInt(BANDWIDTHS.length)] : rnd.nextDouble() * 1000;
  }

  private static <T> T pick(Random rnd, T[] values) {
    return values[rnd.nextInt(values.length)];
  }
}
