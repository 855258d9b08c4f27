#include "channel_parked.h"

int parked_put(recov_parked_ring* ring, const recov_reading* rd, uint32_t near_lo, uint32_t near_hi,
               recov_reading* evicted) {
  /* Relaxed: only spreads parkings over the entries; each entry is claimed by its state word. */
  uint32_t i = atomic_fetch_add_explicit(&ring->next, 1, memory_order_relaxed) % RECOV_PARKED;
  recov_parked_entry* e = &ring->entry[i];
  uint32_t state = atomic_load_explicit(&e->state, memory_order_relaxed);
  if (state == PARK_BUSY) return PARK_FAILED;
  /* Acquire: the entry's previous holder's writes (its reading) are visible before we read or
   * overwrite them. */
  if (!atomic_compare_exchange_strong_explicit(&e->state, &state, PARK_BUSY, memory_order_acquire,
                                               memory_order_relaxed)) {
    return PARK_FAILED;
  }
  int result = PARK_DONE;
  if (state == PARK_READY) {
    *evicted = e->rd;
    result = PARK_DONE_EVICTED;
  } else {
    /* Relaxed: a hint counter. */
    atomic_fetch_add_explicit(&ring->parked, 1, memory_order_relaxed);
  }
  e->rd = *rd;
  /* Relaxed: hints (see parked_near), published with the entry below. */
  atomic_store_explicit(&e->near_lo, near_lo, memory_order_relaxed);
  atomic_store_explicit(&e->near_hi, near_hi, memory_order_relaxed);
  /* Release: the reading is written before the entry is seen READY. */
  atomic_store_explicit(&e->state, PARK_READY, memory_order_release);
  return result;
}

bool parked_claim(recov_parked_ring* ring, uint32_t i, recov_reading* rd) {
  recov_parked_entry* e = &ring->entry[i % RECOV_PARKED];
  uint32_t state = PARK_READY;
  if (atomic_load_explicit(&e->state, memory_order_relaxed) != PARK_READY) return false;
  /* Acquire: pairs with the release that made the entry READY. */
  if (!atomic_compare_exchange_strong_explicit(&e->state, &state, PARK_BUSY, memory_order_acquire,
                                               memory_order_relaxed)) {
    return false;
  }
  *rd = e->rd;
  return true;
}

void parked_release(recov_parked_ring* ring, uint32_t i, bool keep) {
  recov_parked_entry* e = &ring->entry[i % RECOV_PARKED];
  if (!keep) atomic_fetch_sub_explicit(&ring->parked, 1, memory_order_relaxed); /* a hint counter */
  /* Release: hands the entry (and, kept, its unchanged reading) to the next holder. */
  atomic_store_explicit(&e->state, keep ? PARK_READY : PARK_EMPTY, memory_order_release);
}
