package io.ncclinspector.internal;

import io.ncclinspector.EventCounters;
import io.ncclinspector.InspectorConfig;
import io.ncclinspector.InspectorEvent;
import io.ncclinspector.InspectorSnapshot;
import io.ncclinspector.InspectorStatus;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.spi.ExporterContext;
import io.ncclinspector.spi.ExporterFactory;
import io.ncclinspector.spi.InspectorExporter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The exporters of one inspector, each started from its factory and run on a thread of its own
 * behind a bounded queue ({@link AsyncSink}). Events offered here go to every exporter, operations
 * only to those that want them at the time ({@link InspectorExporter#wantsOperations()}); what an
 * exporter's queue cannot take is counted as {@code <name>_backlog_full}.
 */
public final class ExporterSet implements EventSink {
  /** What the exporters' context reads from the inspector. */
  public interface Inspector {
    EventCounters counters();

    InspectorStatus status();

    InspectorSnapshot snapshot();
  }

  private record Started(String name, InspectorExporter exporter, AsyncSink queue) {}

  private final List<Started> started = new ArrayList<>();
  private final Map<String, LongSupplier> dropCounters = new ConcurrentHashMap<>();

  private ExporterSet() {}

  /**
   * Starts the configuration's exporters. If one fails to start, those started before are closed
   * and the failure is thrown.
   */
  public static ExporterSet start(InspectorConfig config, Supplier<Inspector> inspector, int capacity) {
    ExporterSet set = new ExporterSet();
    try {
      for (ExporterFactory f : config.exporters()) {
        InspectorExporter e = f.start(set.new Context(config, inspector));
        if (e == null) {
          throw new IllegalStateException("exporter factory '" + f.name() + "' started no exporter");
        }
        AsyncSink queue = new AsyncSink(e, "nccl-inspector-" + f.name(), capacity);
        set.started.add(new Started(f.name(), e, queue));
      }
    } catch (RuntimeException e) {
      set.close();
      throw e;
    }
    return set;
  }

  @Override
  public void accept(InspectorEvent event) {
    for (Started s : started) {
      if (!(event instanceof OperationRecord) || s.exporter().wantsOperations()) {
        s.queue().accept(event);
      }
    }
  }

  @Override
  public void acceptAll(List<? extends InspectorEvent> events) {
    List<InspectorEvent> others = null; /* the batch without its operations, made once if needed */
    for (Started s : started) {
      if (s.exporter().wantsOperations()) {
        s.queue().acceptAll(events);
      } else {
        if (others == null) {
          others = withoutOperations(events);
        }
        s.queue().acceptAll(others);
      }
    }
  }

  private static List<InspectorEvent> withoutOperations(List<? extends InspectorEvent> events) {
    List<InspectorEvent> out = new ArrayList<>();
    for (InspectorEvent e : events) {
      if (!(e instanceof OperationRecord)) {
        out.add(e);
      }
    }
    return out;
  }

  @Override
  public void flush() {
    for (Started s : started) {
      s.queue().flush();
    }
  }

  @Override
  public void flushNow() {
    for (Started s : started) {
      s.queue().flushNow();
    }
  }

  /** Delivers what is queued to each exporter and closes it (each waited for at most its queue's timeout). */
  @Override
  public void close() {
    for (Started s : started) {
      s.queue().close();
    }
  }

  /** The drop counters of the exporters: their queues' and their own. */
  public Map<String, Long> dropCounters() {
    Map<String, Long> out = new LinkedHashMap<>();
    for (Started s : started) {
      out.put(s.name() + "_backlog_full", s.queue().dropped());
    }
    dropCounters.forEach((name, count) -> out.put(name, count.getAsLong()));
    return out;
  }

  /** The started exporter of a type, if there is one. */
  public <T> Optional<T> find(Class<T> type) {
    return started.stream().map(Started::exporter).filter(type::isInstance).map(type::cast).findFirst();
  }

  /** The names of the exporters started, in order. */
  public List<String> names() {
    return started.stream().map(Started::name).toList();
  }

  private final class Context implements ExporterContext {
    private final InspectorConfig config;
    private final Supplier<Inspector> inspector;

    Context(InspectorConfig config, Supplier<Inspector> inspector) {
      this.config = config;
      this.inspector = inspector;
    }

    @Override
    public InspectorConfig config() {
      return config;
    }

    @Override
    public EventCounters counters() {
      return inspector.get().counters();
    }

    @Override
    public InspectorStatus status() {
      return inspector.get().status();
    }

    @Override
    public InspectorSnapshot snapshot() {
      return inspector.get().snapshot();
    }

    @Override
    public void addDropCounter(String name, LongSupplier count) {
      if (dropCounters.putIfAbsent(name, count) != null) {
        throw new IllegalArgumentException("drop counter '" + name + "' exists already");
      }
    }
  }
}
