#include "gpu_clock_bound.h"

#include <stdatomic.h>

/* One observation: the offset seen (GPU start - host wall at its callback) and when (host
 * monotonic time; 0: empty). The value is stored before the time with release order, and read
 * after the time with acquire order, so a reader that sees an observation's time sees its value
 * (or a later one). */
typedef struct observation {
  _Atomic int64_t offset_ns;
  _Atomic uint64_t mono_ns;
} observation;

typedef struct device_clock {
  _Atomic uint32_t next;
  observation ring[GPU_CLOCK_RING];
} __attribute__((aligned(64))) device_clock;

static device_clock devices[GPU_CLOCK_DEVICES + 1];

void gpu_clock_observe(uint8_t device, uint64_t gpu_start_ns, uint64_t callback_wall_ns,
                       uint64_t callback_mono_ns) {
  if (device > GPU_CLOCK_UNKNOWN_DEVICE || gpu_start_ns == 0 || callback_wall_ns == 0 ||
      callback_mono_ns == 0) {
    return;
  }
  device_clock* d = &devices[device];
  /* Relaxed: the ring index only spreads writers over the slots. */
  uint32_t i = atomic_fetch_add_explicit(&d->next, 1, memory_order_relaxed) % GPU_CLOCK_RING;
  /* Relaxed value, then release time: publishes the value with the time (see `observation`). */
  atomic_store_explicit(&d->ring[i].offset_ns, (int64_t)(gpu_start_ns - callback_wall_ns),
                        memory_order_relaxed);
  atomic_store_explicit(&d->ring[i].mono_ns, callback_mono_ns, memory_order_release);
}

bool gpu_clock_offset_bound(uint8_t device, uint64_t now_mono_ns, int64_t* bound_ns) {
  if (device > GPU_CLOCK_UNKNOWN_DEVICE) return false;
  const device_clock* d = &devices[device];
  uint64_t oldest = now_mono_ns > GPU_CLOCK_WINDOW_NS ? now_mono_ns - GPU_CLOCK_WINDOW_NS : 0;
  bool any = false;
  int64_t best = 0;
  for (int i = 0; i < GPU_CLOCK_RING; i++) {
    /* Acquire: pairs with the release in gpu_clock_observe, so the value read next is this
     * observation's or a later one. */
    uint64_t at = atomic_load_explicit(&((device_clock*)d)->ring[i].mono_ns, memory_order_acquire);
    if (at == 0 || at < oldest || at > now_mono_ns + GPU_CLOCK_WINDOW_NS) continue;
    /* Relaxed: ordered by the acquire above. */
    int64_t v = atomic_load_explicit(&((device_clock*)d)->ring[i].offset_ns, memory_order_relaxed);
    if (!any || v > best) best = v;
    any = true;
  }
  if (any) *bound_ns = best;
  return any;
}

void gpu_clock_reset(void) {
  /* Relaxed: called while no callback runs (enable, replay set-up). */
  for (int dev = 0; dev <= GPU_CLOCK_UNKNOWN_DEVICE; dev++) {
    for (int i = 0; i < GPU_CLOCK_RING; i++) {
      atomic_store_explicit(&devices[dev].ring[i].mono_ns, 0, memory_order_relaxed);
      atomic_store_explicit(&devices[dev].ring[i].offset_ns, 0, memory_order_relaxed);
    }
  }
}
