package io.ncclinspector.examples.bench.jmh;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ncclinspector.EventCounters;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.ProcessIdentity;
import io.ncclinspector.internal.JsonLinesWriter;
import io.ncclinspector.jfr.JfrEvents;
import io.ncclinspector.jfr.internal.JfrExporter;
import io.ncclinspector.prometheus.internal.PrometheusTextfileSink;
import io.ncclinspector.micrometer.NcclInspectorMetrics;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import io.ncclinspector.replay.TraceEvents;
import io.ncclinspector.replay.TraceReader;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What each exporter costs per record, on its own thread, against the JSON Lines writer (the
 * default output) in the same run; and what one Prometheus textfile write costs. Records are the
 * 262 of the bundled h3_mix trace (25 operation classes), replayed through a real inspector once.
 *
 * <pre>
 * bench/jmh ExporterBenchmarks
 * </pre>
 */
@Fork(value = 1, jvmArgsAppend = {"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ExporterBenchmarks {
  static final int RECORDS = 262;

  @State(Scope.Benchmark)
  public static class Records {
    OperationRecord[] records;
    Path dir;
    JsonLinesWriter json;
    PrometheusTextfileSink prometheus;
    NcclInspectorMetrics micrometer;
    JfrExporter jfr;
    Recording recording;
    NcclInspector inspector;

    @Setup(Level.Trial)
    public void setUp() throws IOException, InterruptedException {
      dir = Files.createTempDirectory("nccl-inspector-exporters");
      inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir).jsonOutput(false)
          .withoutExporter(JfrEvents.NAME).minMessageBytes(0).requireKernelTiming(false).build());
      List<OperationRecord> seen = new CopyOnWriteArrayList<>();
      inspector.addListener(new InspectorListener() {
        @Override
        public void operationCompleted(OperationRecord record) {
          seen.add(record);
        }
      });
      TraceEvents trace = new TraceReader().read(Path.of(System.getProperty("bench.trace",
          "examples/traces/h3_mix-trace-pid1061.jsonl.gz")));
      ProfilerTableDriver.open(inspector.status().libraryPath().orElseThrow().toString());
      ProfilerTableDriver.prepare(trace.maxHandleId(), trace.maxContextId());
      ProfilerTableDriver.run(trace.events(), trace.count(), 0, null);
      ProfilerTableDriver.close();
      while (seen.size() < RECORDS) {
        Thread.sleep(10);
      }
      records = seen.toArray(new OperationRecord[0]);
      json = new JsonLinesWriter(OutputStream.nullOutputStream(), new ProcessIdentity("bench-host", 1), "bench",
          false);
      prometheus = new PrometheusTextfileSink(dir.resolve("prom"), Duration.ofSeconds(30), true, "bench-host", 1,
          "unknown", EventCounters::empty, () -> 0);
      micrometer = NcclInspectorMetrics.builder(inspector).build();
      micrometer.bindTo(new SimpleMeterRegistry());
      jfr = new JfrExporter(inspector::snapshot);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      if (recording != null) {
        recording.close();
      }
      jfr.close();
      micrometer.close();
      prometheus.close();
      inspector.close();
    }
  }

  /** The baseline: encoding one JSON line (to a null stream). */
  @Benchmark
  @OperationsPerInvocation(RECORDS)
  public void jsonLine(Records s) throws IOException {
    for (OperationRecord r : s.records) {
      s.json.write(r, 1_795_942_870_000_000L);
    }
  }

  /** Aggregating a record into its Prometheus series (interval means and cumulative histograms). */
  @Benchmark
  @OperationsPerInvocation(RECORDS)
  public void prometheusRecord(Records s) {
    for (OperationRecord r : s.records) {
      s.prometheus.operationCompleted(r);
    }
  }

  /** One textfile write: the h3_mix classes with histograms, plus the process file (per write). */
  @Benchmark
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public void prometheusWrite(Records s) {
    s.prometheus.operationCompleted(s.records[0]); /* so that the GPU file is rewritten */
    s.prometheus.flushNow();
  }

  /** Micrometer: a timer and a distribution summary per record (SimpleMeterRegistry). */
  @Benchmark
  @OperationsPerInvocation(RECORDS)
  public void micrometerRecord(Records s) {
    for (OperationRecord r : s.records) {
      s.micrometer.record(r);
    }
  }

  /** JFR per-operation event while no recording enables it (the default). */
  @Benchmark
  @OperationsPerInvocation(RECORDS)
  public void jfrOperationDisabled(Records s) {
    for (OperationRecord r : s.records) {
      s.jfr.operationCompleted(r);
    }
  }

  /** JFR per-operation event with a recording that enables it. */
  @State(Scope.Benchmark)
  public static class Recorded {
    Recording recording;

    @Setup(Level.Trial)
    public void start() {
      recording = new Recording();
      recording.enable(JfrEvents.OPERATION);
      recording.start();
    }

    @TearDown(Level.Trial)
    public void stop() {
      recording.close();
    }
  }

  @Benchmark
  @OperationsPerInvocation(RECORDS)
  public void jfrOperationRecorded(Records s, Recorded on, Blackhole bh) {
    for (OperationRecord r : s.records) {
      s.jfr.operationCompleted(r);
    }
    bh.consume(on);
  }
}
