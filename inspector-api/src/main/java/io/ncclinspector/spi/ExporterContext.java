package io.ncclinspector.spi;

import io.ncclinspector.EventCounters;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorSnapshot;
import io.ncclinspector.InspectorStatus;
import java.util.function.LongSupplier;

/** What an exporter may ask of the inspector it exports. Every method may be called from any thread. */
public interface ExporterContext {

  /** The inspector's configuration (dump directory, process identity, intervals). */
  InspectorConfig config();

  /** The inspector's drop, note and quarantine counters now. */
  EventCounters counters();

  /** The inspector's status now (records received and written, files, problems). */
  InspectorStatus status();

  /** A snapshot of the inspector's statistics now. */
  InspectorSnapshot snapshot();

  /**
   * Adds a drop counter of the exporter's own ({@code prometheus_series_overflow}) to the
   * inspector's counters, read through {@code count} whenever they are.
   *
   * @throws IllegalArgumentException if the name is taken
   */
  void addDropCounter(String name, LongSupplier count);
}
