package io.ncclinspector.spi;

/**
 * Names of the inspector's environment variables that exporters read too, spelled once for the
 * core and the exporters.
 */
public final class InspectorVariables {
  /** {@code 1}: Prometheus textfiles replace the JSON output, as in NVIDIA's Inspector. */
  public static final String PROM_DUMP = "NCCL_INSPECTOR_PROM_DUMP";
  /** The dump thread's interval in microseconds; the Prometheus textfiles take theirs from it. */
  public static final String DUMP_INTERVAL = "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS";
  /** The prefix of every variable the inspector and its exporters read. */
  public static final String PREFIX = "NCCL_INSPECTOR_";

  private InspectorVariables() {}
}
