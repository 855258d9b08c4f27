package io.ncclinspector.jfr;

import io.ncclinspector.jfr.internal.JfrExporterFactory;
import io.ncclinspector.spi.ExporterFactory;

/**
 * The inspector's JDK Flight Recorder events, so that collectives show in Mission Control next to
 * GC pauses. They follow the recording's settings like any JDK event: slow collectives, suspected
 * hangs and the two periodic events are on by default, every single operation is off by default.
 * While no recording enables an event, emitting it costs a check of a flag.
 *
 * <pre>
 * java -XX:StartFlightRecording:filename=job.jfr,+io.ncclinspector.Operation#enabled=true ...
 * jfr print --events io.ncclinspector.SlowCollective job.jfr
 * </pre>
 *
 * <p>With this module on the class path the events are on for every inspector, unless
 * {@code NCCL_INSPECTOR_JFR=0}, {@code withoutExporter("jfr")} or a runtime without
 * {@code jdk.jfr}; {@link #exporter()} adds them to a configuration explicitly.
 */
public final class JfrEvents {
  /** The exporter's name in a configuration. */
  public static final String NAME = "jfr";
  public static final String OPERATION = "io.ncclinspector.Operation";
  public static final String SLOW_COLLECTIVE = "io.ncclinspector.SlowCollective";
  public static final String SUSPECTED_HANG = "io.ncclinspector.SuspectedHang";
  public static final String OPERATION_STATISTICS = "io.ncclinspector.OperationStatistics";
  public static final String INSPECTOR_STATUS = "io.ncclinspector.InspectorStatus";

  private JfrEvents() {}

  /** The JFR exporter, for {@code InspectorConfig.builder().exporter(...)}. */
  public static ExporterFactory exporter() {
    return JfrExporterFactory.INSTANCE;
  }

  /** Whether this Java runtime has Flight Recorder (a jlink'ed runtime may leave out jdk.jfr). */
  public static boolean available() {
    return ModuleLayer.boot().findModule("jdk.jfr").isPresent();
  }
}
