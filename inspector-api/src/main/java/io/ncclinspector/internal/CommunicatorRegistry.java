package io.ncclinspector.internal;

import io.ncclinspector.CommunicatorInfo;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The communicators the drain thread has heard of, by serial. Written by the drain thread only;
 * readable from any thread. Records are self-describing (id, rank, ranks, nodes), so a record of
 * a communicator whose creation record was lost still gets everything but its name.
 */
public final class CommunicatorRegistry {
  private final ConcurrentMap<Long, CommunicatorInfo> live = new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicLong seen = new java.util.concurrent.atomic.AtomicLong();

  void created(CommunicatorInfo info) {
    if (live.put(info.serial(), info) == null) {
      seen.incrementAndGet();
    }
  }

  /** Communicators heard of so far, live or destroyed. */
  public long seen() {
    return seen.get();
  }

  void destroyed(long serial) {
    live.remove(serial);
  }

  CommunicatorInfo resolve(long serial, long id, int rank, int ranks, int nodes, int abiVersion) {
    CommunicatorInfo known = live.get(serial);
    if (known != null && known.id() == id && known.rank() == rank) {
      return known;
    }
    /* Unknown (its creation record was lost), or interface v1-v3, whose init names no
       communicator: the operation records say which it is. */
    if (known == null) {
      seen.incrementAndGet();
    }
    CommunicatorInfo made = known != null
        ? new CommunicatorInfo(serial, id, known.name(), rank, ranks, nodes, abiVersion,
            known.cudaDevice(), known.gpuUuid(), known.ncclVersionCode())
        : new CommunicatorInfo(serial, id, CommunicatorInfo.UNKNOWN_NAME, rank, ranks, nodes, abiVersion);
    live.put(serial, made);
    return made;
  }

  /** The communicator registered under a serial, or one made from what is known, not stored. */
  public CommunicatorInfo lookup(long serial, long id) {
    CommunicatorInfo known = live.get(serial);
    return known != null ? known : new CommunicatorInfo(serial, id, CommunicatorInfo.UNKNOWN_NAME, -1, 0, 0, 0);
  }

  /** Communicators currently live, in no particular order. */
  public Collection<CommunicatorInfo> live() {
    return List.copyOf(live.values());
  }
}
