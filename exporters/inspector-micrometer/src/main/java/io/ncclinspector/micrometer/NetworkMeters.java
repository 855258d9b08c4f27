package io.ncclinspector.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.ncclinspector.CommunicatorInfo;
import io.ncclinspector.OperationRecord;
import io.ncclinspector.export.CommunicatorNetwork;
import io.ncclinspector.export.NetworkPeers;
import io.ncclinspector.export.PeerWait;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The network meters of {@link NcclInspectorMetrics}: function meters that read the shared
 * {@link NetworkPeers} when the registry publishes. Per communicator (tags {@code communicator},
 * {@code comm_id}, {@code rank}): counters {@code nccl.network.sent} and
 * {@code nccl.network.received} (bytes), function timers {@code nccl.network.time} and
 * {@code nccl.network.send.gpu.wait} (count: operations with a breakdown). Per peer (tag
 * {@code peer}): function timer {@code nccl.network.slowest.peer.wait}, count the operations whose
 * slowest peer it was, total their receive waits; at most {@code maxPeers} peers per communicator,
 * the others in {@code peer=other}. When a peer loses its label its meter is removed; one that
 * wins a label gets one.
 *
 * <p>Guarded by its own lock: the listener's thread records while {@code bindTo} and
 * {@code close} run on others.
 */
final class NetworkMeters {
  private final NetworkPeers<Long> peers;
  private final Tags commonTags;
  private final List<MeterRegistry> registries;
  /* Per communicator serial: the ids of its meters by peer label, TOTALS for the per-communicator ones. */
  private final Map<Long, Map<String, Set<Meter.Id>>> meters = new HashMap<>();
  /* Not a peer label: those are ranks and "other". */
  private static final String TOTALS = "";

  /**
   * @param registries the bound registries, shared with the binder (it adds and clears them)
   */
  NetworkMeters(int maxPeers, Tags commonTags, List<MeterRegistry> registries) {
    this.peers = new NetworkPeers<>(maxPeers);
    this.commonTags = commonTags;
    this.registries = registries;
  }

  /** Network breakdowns left out because 256 communicators had meters. */
  long overflow() {
    return peers.overflow();
  }

  /** Adds a record's breakdown, if it has one, and gives its communicator's labels their meters. */
  synchronized void record(OperationRecord r) {
    long serial = r.communicator().serial();
    if (!peers.add(r, serial)) {
      return;
    }
    CommunicatorNetwork<Long> c = peers.communicator(serial).orElseThrow();
    Map<String, Set<Meter.Id>> held = meters.computeIfAbsent(serial, s -> new HashMap<>());
    Set<String> labels = new HashSet<>();
    labels.add(TOTALS);
    c.peers().forEach(p -> labels.add(p.peer()));
    held.entrySet().removeIf(e -> {
      if (labels.contains(e.getKey())) {
        return false;
      }
      for (MeterRegistry registry : registries) {
        e.getValue().forEach(registry::remove);
      }
      return true;
    });
    for (String label : labels) {
      if (!held.containsKey(label)) {
        Set<Meter.Id> ids = new HashSet<>();
        for (MeterRegistry registry : registries) {
          register(registry, c.communicator(), label, ids);
        }
        held.put(label, ids);
      }
    }
  }

  /** Gives a newly bound registry the meters the others have. */
  synchronized void bindTo(MeterRegistry registry) {
    for (CommunicatorNetwork<Long> c : peers.snapshot()) {
      Map<String, Set<Meter.Id>> held = meters.computeIfAbsent(c.key(), s -> new HashMap<>());
      register(registry, c.communicator(), TOTALS, held.computeIfAbsent(TOTALS, l -> new HashSet<>()));
      for (PeerWait p : c.peers()) {
        register(registry, c.communicator(), p.peer(), held.computeIfAbsent(p.peer(), l -> new HashSet<>()));
      }
    }
  }

  /** Removes the meters from every bound registry (the figures stay for a later bind). */
  synchronized void close() {
    for (Map<String, Set<Meter.Id>> held : meters.values()) {
      for (Set<Meter.Id> ids : held.values()) {
        for (MeterRegistry registry : registries) {
          ids.forEach(registry::remove);
        }
      }
    }
    meters.clear();
  }

  private void register(MeterRegistry registry, CommunicatorInfo c, String label, Set<Meter.Id> ids) {
    long serial = c.serial();
    Tags tags = commonTags.and("communicator", c.name(), "comm_id", c.idHex(), "rank", Integer.toString(c.rank()));
    if (!TOTALS.equals(label)) {
      ids.add(FunctionTimer.builder("nccl.network.slowest.peer.wait", peers,
              p -> p.peer(serial, label).operations(), p -> p.peer(serial, label).waitNanos(), TimeUnit.NANOSECONDS)
          .description("Operations whose longest receive wait was for this peer, and those waits "
              + "(the peers waited for longest; the others in peer=other)")
          .tags(tags).tag("peer", label).register(registry).getId());
      return;
    }
    ids.add(FunctionCounter.builder("nccl.network.sent", peers, p -> p.totals(serial).bytesSent())
        .description("Bytes the NCCL proxy handed to the network").baseUnit(BaseUnits.BYTES).tags(tags)
        .register(registry).getId());
    ids.add(FunctionCounter.builder("nccl.network.received", peers, p -> p.totals(serial).bytesReceived())
        .description("Bytes received from the network").baseUnit(BaseUnits.BYTES).tags(tags)
        .register(registry).getId());
    ids.add(FunctionTimer.builder("nccl.network.time", peers, p -> p.totals(serial).operations(),
            p -> p.totals(serial).networkNanos(), TimeUnit.NANOSECONDS)
        .description("Operations with a network breakdown, and their time from first chunk posted to last "
            + "proxy operation done").tags(tags).register(registry).getId());
    ids.add(FunctionTimer.builder("nccl.network.send.gpu.wait", peers, p -> p.totals(serial).operations(),
            p -> p.totals(serial).sendGpuWaitNanos(), TimeUnit.NANOSECONDS)
        .description("Operations with a network breakdown, and their longest wait for the own GPU's first "
            + "chunk to send").tags(tags).register(registry).getId());
  }
}
