#include "gpu_clock_bound.h"

#include <stdatomic.h>

/* The largest observation of each period of 2^GPU_CLOCK_PERIOD_SHIFT ns (about 67 ms) of host
 * monotonic time, in GPU_CLOCK_RING buckets indexed by period: together they cover the window of
 * GPU_CLOCK_WINDOW_NS whatever the rate of operations (a ring of the last observations covered only
 * the last 16 operations, milliseconds at a high rate). Each bucket is one word: the period number
 * (its low PERIOD_BITS) above the offset (a signed OFFSET_BITS value), so an observation replaces or
 * raises it with one compare-and-swap, and a reader sees a period's value whole. */
#define GPU_CLOCK_PERIOD_SHIFT 26
/* 36 bits of offset (+-34 s; the offsets seen are milliseconds) leave 28 of period: a period number
 * repeats after 2^28 periods, 208 days, so a bucket left untouched that long is the only one that
 * could pass for a current one. */
#define OFFSET_BITS 36
#define PERIOD_BITS (64 - OFFSET_BITS)
#define OFFSET_MASK ((1ull << OFFSET_BITS) - 1)
#define PERIOD_MASK ((1ull << PERIOD_BITS) - 1)
/* An offset above +2^35 ns (34 s) is stored as that (a smaller value is still a lower bound); one
 * below -2^35 ns is dropped (storing any value it could take would raise it). */
#define OFFSET_MAX ((int64_t)(OFFSET_MASK >> 1))
#define OFFSET_MIN (-OFFSET_MAX - 1)

typedef struct device_clock {
  _Atomic uint64_t bucket[GPU_CLOCK_RING]; /* period << OFFSET_BITS | offset; 0: empty */
} __attribute__((aligned(64))) device_clock;

static device_clock devices[GPU_CLOCK_DEVICES + 1];

static inline uint64_t pack(uint64_t period, int64_t offset) {
  return ((period & PERIOD_MASK) << OFFSET_BITS) | ((uint64_t)offset & OFFSET_MASK);
}

static inline uint64_t period_of(uint64_t word) { return word >> OFFSET_BITS; }

static inline int64_t offset_of(uint64_t word) {
  /* Sign-extends the low OFFSET_BITS. */
  return (int64_t)(word << PERIOD_BITS) >> PERIOD_BITS;
}

/* How many periods `b` is ahead of `a` (negative: behind), modulo 2^PERIOD_BITS. */
static inline int64_t periods_ahead(uint64_t a, uint64_t b) {
  return (int64_t)(((b - a) & PERIOD_MASK) << OFFSET_BITS) >> OFFSET_BITS;
}

void gpu_clock_observe(uint8_t device, uint64_t gpu_start_ns, uint64_t callback_wall_ns,
                       uint64_t callback_mono_ns) {
  if (device > GPU_CLOCK_UNKNOWN_DEVICE || gpu_start_ns == 0 || callback_wall_ns == 0 ||
      callback_mono_ns == 0) {
    return;
  }
  int64_t v = (int64_t)(gpu_start_ns - callback_wall_ns);
  if (v > OFFSET_MAX) v = OFFSET_MAX; /* smaller: still a lower bound */
  if (v < OFFSET_MIN) return;         /* cannot be stored without raising it: dropped */
  uint64_t period = (callback_mono_ns >> GPU_CLOCK_PERIOD_SHIFT) & PERIOD_MASK;
  _Atomic uint64_t* b = &devices[device].bucket[period % GPU_CLOCK_RING];
  /* Relaxed: each word is self-contained (period and value together); nothing else is published. */
  uint64_t word = atomic_load_explicit(b, memory_order_relaxed);
  for (;;) {
    if (word != 0) {
      int64_t ahead = periods_ahead(period, period_of(word));
      if (ahead > 0) return;                                /* the bucket holds a later period */
      if (ahead == 0 && offset_of(word) >= v) return;       /* not above this period's largest */
    }
    if (atomic_compare_exchange_weak_explicit(b, &word, pack(period, v), memory_order_relaxed,
                                              memory_order_relaxed)) {
      return;
    }
  }
}

bool gpu_clock_offset_bound(uint8_t device, uint64_t now_mono_ns, int64_t* bound_ns) {
  if (device > GPU_CLOCK_UNKNOWN_DEVICE) return false;
  const device_clock* d = &devices[device];
  uint64_t now = (now_mono_ns >> GPU_CLOCK_PERIOD_SHIFT) & PERIOD_MASK;
  /* Periods within the window either side of `now` (an observation made after `now` is as valid). */
  int64_t span = (int64_t)(GPU_CLOCK_WINDOW_NS >> GPU_CLOCK_PERIOD_SHIFT);
  bool any = false;
  int64_t best = 0;
  for (int i = 0; i < GPU_CLOCK_RING; i++) {
    /* Relaxed: the word is self-contained. */
    uint64_t word = atomic_load_explicit(&((device_clock*)d)->bucket[i], memory_order_relaxed);
    if (word == 0) continue;
    int64_t ahead = periods_ahead(now, period_of(word));
    if (ahead < -span || ahead > span) continue;
    int64_t v = offset_of(word);
    if (!any || v > best) best = v;
    any = true;
  }
  if (any) *bound_ns = best;
  return any;
}

void gpu_clock_reset(void) {
  /* Relaxed: called while no callback runs (enable, replay set-up). */
  for (int dev = 0; dev <= GPU_CLOCK_UNKNOWN_DEVICE; dev++) {
    for (int i = 0; i < GPU_CLOCK_RING; i++) atomic_store_explicit(&devices[dev].bucket[i], 0, memory_order_relaxed);
  }
}
