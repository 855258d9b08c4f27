package io.ncclinspector.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.CommunicatorSelector;
import io.ncclinspector.EventCounters;
import io.ncclinspector.HangEvent;
import io.ncclinspector.InspectorListener;
import io.ncclinspector.ListenerRegistration;
import io.ncclinspector.NcclInspector;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.Quarantine;
import io.ncclinspector.SlowCollectiveEvent;
import io.ncclinspector.SlowCollectiveSummary;
import io.ncclinspector.export.ClassKey;
import io.ncclinspector.export.NetworkPeers;
import io.ncclinspector.export.OperationClasses;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Micrometer meters for an inspector: per communicator and operation class, a {@link Timer} of
 * execution time and a {@link DistributionSummary} of bus bandwidth (GB/s), for collectives and
 * Send/Recv apart; counters of records, drops (by reason), quarantined records, slow collectives
 * and suspected hangs; a gauge of live communicators; from the records' network breakdown, per
 * communicator rank, bytes sent and received, network time and waits for the own GPU, and per peer
 * the operations it was the slowest peer of and their receive waits, at most
 * {@link Builder#maxPeersPerCommunicator} peers a communicator and the rest in {@code peer=other}.
 *
 * <pre>{@code
 * try (NcclInspector inspector = NcclInspector.enable();
 *      NcclInspectorMetrics metrics = NcclInspectorMetrics.builder(inspector).build()) {
 *   metrics.bindTo(registry);   // or register it as a MeterBinder bean
 *   ...
 * }
 * }</pre>
 *
 * <p>Tag cardinality is bounded: tags are the communicator (name and id), the operation, algorithm,
 * protocol and the reference's message-size bucket ({@code 8-9KB}), never sequence numbers or
 * ranks' timestamps; and past {@link Builder#maxOperationClasses} distinct tag sets, operations
 * are counted in {@code nccl.inspector.meters.overflow} instead of creating meters.
 *
 * <p>Records reach the meters through a listener of the inspector, on its own thread; a registry
 * that is slow to record only delays that thread (and, past its queue, drops are counted by the
 * registration). Records without a trusted time (quarantined or untimed) are counted, not timed; their network
 * breakdown (host clock) is metered.
 *
 * <p>Micrometer is an optional dependency of this library: only applications that use this class
 * need it on the class path.
 */
public final class NcclInspectorMetrics implements MeterBinder, AutoCloseable {
  private final NcclInspector inspector;
  private final Tags commonTags;
  private final boolean percentileHistogram;
  private final CommunicatorSelector selector;
  private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();
  private final Set<Meter.Id> registered = ConcurrentHashMap.newKeySet();
  /* Cleared on another thread (bindTo, close) while the listener records: concurrent. */
  private final OperationClasses<Long, Meters> meters;
  private final NetworkMeters network;
  private final CachedCounters counters;
  private volatile ListenerRegistration registration;

  private NcclInspectorMetrics(Builder b) {
    this.inspector = b.inspector;
    this.commonTags = b.tags;
    this.meters = OperationClasses.concurrent(b.maxClasses);
    this.percentileHistogram = b.percentileHistogram;
    this.selector = b.selector;
    this.counters = new CachedCounters(inspector, b.countersRefreshNanos);
    this.network = new NetworkMeters(b.maxPeers, commonTags, registries);
  }

  public static Builder builder(NcclInspector inspector) {
    return new Builder(inspector);
  }

  /**
   * Operations not metered because {@link Builder#maxOperationClasses} tag sets existed already,
   * and network breakdowns left out because 256 communicators had network meters.
   */
  public long overflow() {
    return meters.overflow() + network.overflow();
  }

  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    if (registries.contains(registry)) {
      return;
    }
    registries.add(registry);
    meters.clear(); /* rebuilt lazily for every bound registry */
    remember(FunctionCounter.builder("nccl.inspector.records", inspector, i -> i.status().records().received())
        .description("Operation records received from NCCL").tags(commonTags).register(registry));
    EventCounters now = inspector.counters();
    for (String reason : now.drops().keySet()) {
      remember(FunctionCounter.builder("nccl.inspector.dropped", counters, c -> c.get().drops().getOrDefault(reason, 0L))
          .description("Events or records dropped, by reason").tags(commonTags).tag("reason", reason).register(registry));
    }
    for (Quarantine reason : now.quarantined().keySet()) {
      remember(FunctionCounter.builder("nccl.inspector.quarantined", counters, c -> c.get().get(reason))
          .description("Records whose GPU timing was not trusted, by reason").tags(commonTags)
          .tag("reason", reason.jsonName()).register(registry));
    }
    remember(FunctionCounter.builder("nccl.inspector.meters.overflow", this, NcclInspectorMetrics::overflow)
        .description("Operations not metered because the operation-class or communicator limit was reached")
        .tags(commonTags).register(registry));
    remember(Gauge.builder("nccl.inspector.communicators", inspector, i -> i.communicators().size())
        .description("Live NCCL communicators").tags(commonTags).register(registry));
    network.bindTo(registry);
    if (registration == null && inspector.isActive()) {
      registration = inspector.addListener(selector, new Recorder());
    }
  }

  private void remember(Meter m) {
    registered.add(m.getId());
  }

  /** Stops metering and removes this binder's meters from the registries it was bound to. */
  @Override
  public synchronized void close() {
    ListenerRegistration r = registration;
    registration = null;
    if (r != null) {
      r.close();
    }
    for (MeterRegistry registry : registries) {
      for (Meter.Id id : registered) {
        registry.remove(id);
      }
    }
    network.close();
    registries.clear();
    meters.clear();
  }

  /** The meters of one class, in every bound registry. */
  private record Meters(Timer[] time, DistributionSummary[] bandwidth) {}

  /** The meters of a class (the communicator's serial tells communicators apart), made once. */
  private Meters metersOf(ClassKey<Long> key, CommunicatorInfo c) {
    Tags tags = commonTags.and("communicator", c.name(), "comm_id", c.idHex(), "operation", key.operation(),
        "message_size", key.messageSize());
    if (key.collective()) {
      tags = tags.and("algorithm", key.algorithm(), "protocol", key.protocol());
    }
    String prefix = key.collective() ? "nccl.collective" : "nccl.p2p";
    List<MeterRegistry> regs = new ArrayList<>(registries);
    Timer[] timers = new Timer[regs.size()];
    DistributionSummary[] summaries = new DistributionSummary[regs.size()];
    for (int i = 0; i < regs.size(); i++) {
      Timer t = Timer.builder(prefix + ".exec.time").description("Execution time on the GPU")
          .tags(tags).publishPercentileHistogram(percentileHistogram).register(regs.get(i));
      DistributionSummary s = DistributionSummary.builder(prefix + ".bus.bandwidth")
          .description("Bus bandwidth (nccl-tests convention)").baseUnit("GB/s")
          .tags(tags).publishPercentileHistogram(percentileHistogram).register(regs.get(i));
      remember(t);
      remember(s);
      timers[i] = t;
      summaries[i] = s;
    }
    return new Meters(timers, summaries);
  }

  /**
   * Meters one completed operation, as the binder's listener does for every record of the
   * inspector. Also usable to meter records from elsewhere (a replay, an exported file). Call it
   * from one thread at a time. Its network breakdown, if it has one, goes into the network meters
   * whether it is quarantined or not (it comes from the host clock, not the GPU's).
   */
  public void record(OperationRecord r) {
    network.record(r);
    if (!OperationClasses.recordable(r)) {
      return; /* counted by nccl.inspector.quarantined */
    }
    CommunicatorInfo c = r.communicator();
    Meters m = meters.classOf(r, c.serial(), key -> metersOf(key, c));
    if (m == null) {
      return; /* counted by nccl.inspector.meters.overflow */
    }
    for (Timer t : m.time()) {
      t.record(r.timing().executionNanos(), TimeUnit.NANOSECONDS);
    }
    for (DistributionSummary s : m.bandwidth()) {
      s.record(r.transfer().busBandwidthGbs());
    }
  }

  /** Records on the listener thread of the registration. */
  private final class Recorder implements InspectorListener {
    @Override
    public void operationCompleted(OperationRecord r) {
      record(r);
    }

    @Override
    public void slowCollective(SlowCollectiveEvent e) {
      countSlow(e.record().communicator(), e.record().operation(), e.kind(), 1);
    }

    /** Those the rate limit held back from listeners are slow collectives too. */
    @Override
    public void slowCollectivesSuppressed(SlowCollectiveSummary s) {
      for (Map.Entry<SlowCollectiveEvent.Kind, Long> k : s.kinds().entrySet()) {
        countSlow(s.communicator(), s.operationClass().operation(), k.getKey(), k.getValue());
      }
    }

    private void countSlow(CommunicatorInfo c, String operation, SlowCollectiveEvent.Kind kind, long n) {
      for (MeterRegistry registry : registries) {
        Counter counter = Counter.builder("nccl.inspector.slow.collectives")
            .description("Collectives that ran slow against what is normal for their class, rate-limited ones included")
            .tags(commonTags).tags("communicator", c.name(), "comm_id", c.idHex(), "operation", operation,
                "kind", kind.name().toLowerCase(java.util.Locale.ROOT))
            .register(registry);
        remember(counter);
        counter.increment(n);
      }
    }

    @Override
    public void hangSuspected(HangEvent e) {
      CommunicatorInfo c = e.communicator();
      for (MeterRegistry registry : registries) {
        Counter counter = Counter.builder("nccl.inspector.hangs.suspected")
            .description("Operations in flight longer than the hang timeout")
            .tags(commonTags).tags("communicator", c.name(), "comm_id", c.idHex(), "operation", e.operation())
            .register(registry);
        remember(counter);
        counter.increment();
      }
    }
  }

  /**
   * The inspector's counters, read at most once per refresh period: a registry reads every drop
   * counter at each scrape, and reading them all from the native core once serves them all.
   */
  private static final class CachedCounters {
    private final NcclInspector inspector;
    private final long refreshNanos;
    private volatile EventCounters value;
    private volatile long readAt;

    CachedCounters(NcclInspector inspector, long refreshNanos) {
      this.inspector = inspector;
      this.refreshNanos = refreshNanos;
    }

    EventCounters get() {
      long now = System.nanoTime();
      EventCounters v = value;
      if (v == null || now - readAt >= refreshNanos) {
        v = inspector.counters();
        value = v;
        readAt = now;
      }
      return v;
    }
  }

  /** Configures {@link NcclInspectorMetrics}. */
  public static final class Builder {
    private final NcclInspector inspector;
    private Tags tags = Tags.empty();
    private int maxClasses = 512;
    private int maxPeers = NetworkPeers.DEFAULT_MAX_PEERS;
    private boolean percentileHistogram;
    private CommunicatorSelector selector = CommunicatorSelector.all();
    private long countersRefreshNanos = TimeUnit.SECONDS.toNanos(1);

    private Builder(NcclInspector inspector) {
      this.inspector = Objects.requireNonNull(inspector, "inspector");
    }

    /** Tags added to every meter (for example the job or the model). */
    public Builder tags(Iterable<Tag> extra) {
      tags = tags.and(extra);
      return this;
    }

    public Builder tags(String... keyValues) {
      tags = tags.and(keyValues);
      return this;
    }

    /**
     * Distinct (communicator, operation, algorithm, protocol, size bucket) tag sets that get
     * meters (512); operations of further ones are counted in {@code nccl.inspector.meters.overflow}.
     */
    public Builder maxOperationClasses(int max) {
      if (max < 1) {
        throw new IllegalArgumentException("maxOperationClasses must be positive: " + max);
      }
      maxClasses = max;
      return this;
    }

    /**
     * Peers of a communicator with a {@code peer} tag of their own in
     * {@code nccl.network.slowest.peer.wait} ({@value NetworkPeers#DEFAULT_MAX_PEERS}): those
     * waited for longest; the others are folded into {@code peer=other}.
     */
    public Builder maxPeersPerCommunicator(int max) {
      if (max < 1) {
        throw new IllegalArgumentException("maxPeersPerCommunicator must be positive: " + max);
      }
      maxPeers = max;
      return this;
    }

    /** Publish histogram buckets for percentile queries (Prometheus {@code histogram_quantile}). */
    public Builder publishPercentileHistogram(boolean publish) {
      percentileHistogram = publish;
      return this;
    }

    /** Only these communicators get operation meters (all by default). */
    public Builder communicators(CommunicatorSelector s) {
      selector = Objects.requireNonNull(s, "selector");
      return this;
    }

    public NcclInspectorMetrics build() {
      return new NcclInspectorMetrics(this);
    }
  }
}
