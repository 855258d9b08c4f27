package io.ncclinspector.examples.bench.jmh;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.InspectorSnapshot;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.testkit.driver.ProfilerTableDriver;
import io.ncclinspector.replay.TraceEvents;
import io.ncclinspector.replay.TraceReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The Java API's costs: taking a snapshot, and the latency from the callback that completes an
 * operation (on what would be NCCL's thread) to a listener receiving its record.
 *
 * <pre>
 * bench/jmh                       # both
 * bench/jmh ApiBenchmarks.snapshot
 * </pre>
 */
@Fork(value = 1, jvmArgsAppend = {"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ApiBenchmarks {

  /** An inspector whose statistics hold the h3_mix run four times (4 communicators, 25 classes each). */
  @State(Scope.Benchmark)
  public static class Populated {
    NcclInspector inspector;
    Path dir;

    @Setup(Level.Trial)
    public void setUp() throws IOException, InterruptedException {
      dir = Files.createTempDirectory("nccl-inspector-jmh");
      inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir).jsonOutput(false)
          .minMessageBytes(0).requireKernelTiming(false).build());
      TraceEvents trace = new TraceReader().read(Path.of(System.getProperty("bench.trace",
          "examples/traces/h3_mix-trace-pid1061.jsonl.gz")));
      for (int i = 0; i < 4; i++) {
        ProfilerTableDriver.open(inspector.status().libraryPath().orElseThrow().toString());
        ProfilerTableDriver.prepare(trace.maxHandleId(), trace.maxContextId());
        ProfilerTableDriver.run(trace.events(), trace.count(), 0, null);
        ProfilerTableDriver.close();
      }
      while (inspector.snapshot().totalOperations() < 4 * 262) {
        Thread.sleep(10);
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      inspector.close();
    }
  }

  /** Nothing changed since the previous snapshot: what polling costs. */
  @Benchmark
  @BenchmarkMode({Mode.AverageTime})
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public InspectorSnapshot snapshot(Populated state) {
    return state.inspector.snapshot();
  }

  /** The populated inspector, and before each snapshot one more pass of the trace (every class of
   * one communicator has new records to fold). */
  @State(Scope.Benchmark)
  public static class Changing extends Populated {
    TraceEvents trace;
    long expected = 4 * 262;

    @Setup(Level.Trial)
    public void load() throws IOException {
      trace = new TraceReader().read(Path.of(System.getProperty("bench.trace",
          "examples/traces/h3_mix-trace-pid1061.jsonl.gz")));
    }

    @Setup(Level.Invocation)
    public void moreRecords() throws InterruptedException {
      ProfilerTableDriver.open(inspector.status().libraryPath().orElseThrow().toString());
      ProfilerTableDriver.prepare(trace.maxHandleId(), trace.maxContextId());
      ProfilerTableDriver.run(trace.events(), trace.count(), 0, null);
      ProfilerTableDriver.close();
      expected += 262;
      while (inspector.status().records().received() < expected) {
        Thread.sleep(1);
      }
      Thread.sleep(5); /* let the analysis thread fold them in */
    }
  }

  @Benchmark
  @BenchmarkMode({Mode.AverageTime})
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public InspectorSnapshot snapshotAfterNewRecords(Changing state) {
    return state.inspector.snapshot();
  }

  /** An inspector with one listener, and one collective to drive at a time. */
  @State(Scope.Benchmark)
  public static class OneCollective {
    NcclInspector inspector;
    final AtomicLong received = new AtomicLong();
    ByteBuffer collective;
    int calls;
    long expected;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
      Path dir = Files.createTempDirectory("nccl-inspector-jmh");
      inspector = NcclInspector.enable(InspectorConfig.builder().dumpDirectory(dir).jsonOutput(false)
          .minMessageBytes(0).build());
      inspector.addListener(new InspectorListener() {
        @Override
        public void operationCompleted(OperationRecord r) {
          received.incrementAndGet();
        }
      });
      /* init, then one collective: start, stop, channel start, GPU stop, channel stop */
      List<String> lines = new ArrayList<>();
      lines.add("{\"t\":1,\"wall\":1,\"tid\":1,\"ev\":\"init\",\"ctx\":1,\"commId\":\"0x5eed\",\"commName\":\"bench\","
          + "\"nNodes\":1,\"nranks\":8,\"rank\":0}");
      lines.add("{\"t\":2,\"wall\":2,\"tid\":1,\"ev\":\"start\",\"ctx\":1,\"h\":1,\"type\":\"Coll\",\"parent\":0,\"rank\":0,"
          + "\"seq\":0,\"func\":\"AllReduce\",\"count\":262144,\"root\":0,\"datatype\":\"ncclFloat32\",\"nChannels\":1,"
          + "\"nWarps\":8,\"algo\":\"RING\",\"proto\":\"SIMPLE\",\"parentGroup\":0}");
      lines.add("{\"t\":3,\"wall\":3,\"tid\":1,\"ev\":\"stop\",\"h\":1}");
      lines.add("{\"t\":4,\"wall\":4,\"tid\":1,\"ev\":\"start\",\"ctx\":1,\"h\":2,\"type\":\"KernelCh\",\"parent\":1,"
          + "\"rank\":0,\"channelId\":0,\"pTimer\":1795942870000000000}");
      lines.add("{\"t\":5,\"wall\":5,\"tid\":1,\"ev\":\"state\",\"h\":2,\"state\":22,\"pTimer\":1795942870000050000}");
      lines.add("{\"t\":6,\"wall\":6,\"tid\":1,\"ev\":\"stop\",\"h\":2}");
      Path file = dir.resolve("trace-pid1.jsonl");
      Files.write(file, lines, StandardCharsets.UTF_8);
      TraceEvents t = new TraceReader().read(file);
      ProfilerTableDriver.open(inspector.status().libraryPath().orElseThrow().toString());
      ProfilerTableDriver.prepare(t.maxHandleId(), t.maxContextId());
      ProfilerTableDriver.run(t.events().slice(0, TraceEvents.eventBytes()), 1, 0, null);
      collective = t.events().slice(TraceEvents.eventBytes(), 5 * TraceEvents.eventBytes());
      calls = 5;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      ProfilerTableDriver.close();
      inspector.close();
    }
  }

  /** From the first callback of a collective to its record in a listener (one at a time). */
  @Benchmark
  @BenchmarkMode({Mode.SampleTime})
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public long listenerDeliveryLatency(OneCollective state) {
    long target = state.received.get() + 1;
    ProfilerTableDriver.run(state.collective, state.calls, 0, null);
    while (state.received.get() < target) {
      Thread.onSpinWait();
    }
    return target;
  }
}
