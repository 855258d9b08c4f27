package io.ncclinspector.examples.modular;

import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.InspectorStatus;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.jfr.JfrEvents;
import io.ncclinspector.prometheus.PrometheusTextfile;
import io.ncclinspector.replay.TracePlayer;
import io.ncclinspector.spi.ExporterFactory;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;

/**
 * Plays a recorded trace into an inspector from a named module and prints what a modular
 * application can see: the exporters found on the module path (service binding), the records, the
 * Prometheus textfiles and the JFR events, the packages the core exports, and whether its internals
 * can be reached (they cannot).
 *
 * <pre>
 * examples/module-path/run.sh [TRACE] [OUT_DIR]
 * </pre>
 */
public final class ModularReplay {
  private ModularReplay() {}

  public static void main(String[] args) throws Exception {
    Path trace = Path.of(args.length > 0 ? args[0] : "examples/traces/h3_mix-trace-pid1061.jsonl.gz");
    Path out = Path.of(args.length > 1 ? args[1] : "out/module-path");
    InspectorConfig config = InspectorConfig.builder().dumpDirectory(out).minMessageBytes(0)
        .exporter(PrometheusTextfile.every(Duration.ofSeconds(30)).withRemoveFilesOnClose(false)).build();
    System.out.println("exporters " + config.exporters().stream().map(ExporterFactory::name).sorted().toList());
    LongAdder heard = new LongAdder();
    InspectorStatus status;
    try (Recording recording = new Recording()) {
      recording.enable(JfrEvents.OPERATION);
      recording.start();
      try (NcclInspector inspector = NcclInspector.enable(config)) {
        inspector.addListener(new InspectorListener() {
          @Override
          public void operationCompleted(OperationRecord record) {
            heard.increment();
          }
        });
        try (TracePlayer player = TracePlayer.open(inspector, trace)) {
          player.playAll();
        }
        inspector.close();
        status = inspector.status();
      }
      recording.stop();
      Path jfr = out.resolve("module-path.jfr");
      recording.dump(jfr);
      long events = RecordingFile.readAllEvents(jfr).stream()
          .filter(e -> e.getEventType().getName().equals(JfrEvents.OPERATION)).count();
      System.out.println("jfr operation events " + events);
    }
    System.out.println("records received " + status.records().received() + " written " + status.records().written()
        + " quarantined " + status.records().quarantined() + " heard " + heard.sum());
    try (Stream<Path> files = Files.list(out)) {
      System.out.println("prometheus textfiles " + files.filter(f -> f.toString().endsWith(".prom")).count());
    }
    Module core = NcclInspector.class.getModule();
    System.out.println("module " + core.getName() + " exports " + core.getDescriptor().exports().stream()
        .filter(e -> !e.isQualified()).map(ModuleDescriptor.Exports::source).sorted().toList());
    try {
      Class.forName("io.ncclinspector.internal.NativeCore").getMethod("get").invoke(null);
      System.out.println("internals reachable");
    } catch (IllegalAccessException e) {
      System.out.println("internals hidden");
    }
  }
}
