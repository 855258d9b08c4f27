/* Readings that channel recovery could not place yet, parked per channel to be tried again after
 * later placements on the channel (docs/research/channel-recovery.md, step 3: "the online form
 * parks a timestamp while it is ambiguous and retries it after each placement").
 *
 * A ring of RECOV_PARKED entries per channel. Each entry is owned by whoever moves its state word
 * out of READY or EMPTY by compare-and-swap (acquire) and handed back by a release store, so its
 * fields are plain data. Parking takes the next entry in turn; if that entry still holds an older
 * reading, the older one is evicted (returned to the caller, which reports it lost); if another
 * thread holds it, parking fails and the caller reports the reading at once as before. */
#ifndef NCCL_INSPECTOR_CHANNEL_PARKED_H
#define NCCL_INSPECTOR_CHANNEL_PARKED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Readings parked per channel. The research model placed 185 of n2_moe's 200 collectives with 16
 * (187 with no bound; at most 41 parked at once there). */
#define RECOV_PARKED 16
/* Parked readings tried again after one placement at most (bounds the work on NCCL's thread). */
#ifndef RECOV_RETRIES
#define RECOV_RETRIES 4
#endif

/* What resolving a reading needs once its operation is gone. */
typedef struct recov_reading {
  uint32_t base;                     /* the reader's host count on the channel */
  uint32_t upper_start, upper_stop;  /* items launched when NCCL read the start, the stop */
  uint64_t start, stop;              /* the GPU timestamps read */
  uint64_t op_start_ns;              /* the reader's start (host), where the GPU clock bound is read */
  uint8_t clock_device;              /* gpu_clock_bound.h slot of the reader's device */
  uint8_t lagging;                   /* the reader's own item is not base: base's owner waits for it */
  uint8_t from_pair;                 /* the reader is a P2P (its round's partner reads the same slot) */
  /* The causal test's verdict, kept for retries (channel_recovery.c judge_causal): candidates
   * base + 64i for i < n; bit i of start_ok / stop_ok: candidate i still possible; bit i of known:
   * its owner entry was found, launch[i] its launch serial. */
  uint8_t n, start_ok, stop_ok, known;
  uint32_t launch[4];
} recov_reading;

enum { PARK_EMPTY = 0, PARK_BUSY = 1, PARK_READY = 2 };

typedef struct recov_parked_entry {
  _Atomic uint32_t state; /* PARK_* */
  /* The items a placement must fall between to be worth a retry of this reading (a hint, read
   * before claiming: relaxed, written before the entry's release). */
  _Atomic uint32_t near_lo, near_hi;
  recov_reading rd;
} recov_parked_entry;

typedef struct recov_parked_ring {
  _Atomic uint32_t next;   /* the entry the next parking takes (modulo RECOV_PARKED) */
  _Atomic uint32_t parked; /* entries READY (a hint: a retry skips a ring that looks empty) */
  _Atomic uint32_t retry_from; /* the entry the next retry starts from (spreads bounded retries) */
  recov_parked_entry entry[RECOV_PARKED];
} recov_parked_ring;

enum { PARK_FAILED = 0, PARK_DONE = 1, PARK_DONE_EVICTED = 2 };

/* Parks rd; a retry is worth it after a placement of an item in [near_lo, near_hi].
 * PARK_DONE_EVICTED: *evicted holds the older reading it replaced. */
int parked_put(recov_parked_ring* ring, const recov_reading* rd, uint32_t near_lo, uint32_t near_hi,
               recov_reading* evicted);

/* Whether a placement of `item` is worth a retry of entry i (a hint, before claiming it). */
static inline bool parked_near(const recov_parked_ring* ring, uint32_t i, uint32_t item) {
  const recov_parked_entry* e = &ring->entry[i % RECOV_PARKED];
  /* Relaxed: a hint; the claim decides. */
  uint32_t lo = atomic_load_explicit(&e->near_lo, memory_order_relaxed);
  uint32_t hi = atomic_load_explicit(&e->near_hi, memory_order_relaxed);
  return (int32_t)(item - lo) >= 0 && (int32_t)(hi - item) >= 0;
}

/* Claims parked entry i for a retry: true with its reading in *rd. Hand it back with parked_release. */
bool parked_claim(recov_parked_ring* ring, uint32_t i, recov_reading* rd);
/* Hands a claimed entry back: kept (still parked) or emptied (placed). */
void parked_release(recov_parked_ring* ring, uint32_t i, bool keep);

static inline bool parked_any(const recov_parked_ring* ring) {
  /* Relaxed: a hint (see the struct). */
  return atomic_load_explicit(&ring->parked, memory_order_relaxed) != 0;
}

#endif
