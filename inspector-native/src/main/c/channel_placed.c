#include "channel_placed.h"

/* Seqlock protocol (Boehm, "Can seqlocks get along with programming language memory models?"), with
 * the item number as the sequence: the writer marks the entry busy, issues a release fence, stores
 * the data, and release-stores the item; a reader acquire-loads the item, loads the data, issues an
 * acquire fence and loads the item again. If a data load saw a value stored after the writer's
 * fence, the fences synchronise and the second load sees the busy mark or a later item, so a torn
 * entry is never taken. ThreadSanitizer does not model fences: its builds use release stores and
 * acquire loads of the data instead (tests only; on x86 the two forms compile to the same loads and
 * stores). */
#if defined(__SANITIZE_THREAD__)
#define DATA_STORE memory_order_release
#define DATA_LOAD memory_order_acquire
#else
#define DATA_STORE memory_order_relaxed
#define DATA_LOAD memory_order_relaxed
#endif

bool placed_put(recov_placed_ring* ring, uint32_t item, uint64_t start, uint64_t stop) {
  if (item == 0 || item == RECOV_PLACED_BUSY || stop <= start || stop - start > UINT32_MAX) return false;
  recov_placed* e = &ring->entry[item % RECOV_PLACED];
  /* Relaxed: the claim orders nothing by itself; the release fence below orders it before the data. */
  uint32_t old = atomic_load_explicit(&e->item, memory_order_relaxed);
  if (old == item || old == RECOV_PLACED_BUSY) return false;
  /* An entry is only ever moved to a newer item: an older reading must not push out a newer one. */
  if (old != 0 && (int32_t)(item - old) < 0) return false;
  if (!atomic_compare_exchange_strong_explicit(&e->item, &old, RECOV_PLACED_BUSY, memory_order_relaxed,
                                               memory_order_relaxed)) {
    return false;
  }
#if !defined(__SANITIZE_THREAD__)
  atomic_thread_fence(memory_order_release);
#endif
  atomic_store_explicit(&e->start, start, DATA_STORE);
  atomic_store_explicit(&e->duration, (uint32_t)(stop - start), DATA_STORE);
  /* Release: a reader that acquires the item sees the data above. */
  atomic_store_explicit(&e->item, item, memory_order_release);
  /* Relaxed load and store, not a compare-and-swap: newest only bounds searches (each entry is
   * checked by its own protocol). Two writers racing may leave the smaller of their items; a search
   * bounded lower finds less, never wrong, and the next placement raises it again. */
  if ((int32_t)(item - atomic_load_explicit(&ring->newest, memory_order_relaxed)) > 0) {
    atomic_store_explicit(&ring->newest, item, memory_order_relaxed);
  }
  return true;
}

/* Reads entry e; true with its item and data when it was stable over the reads. */
static inline bool read_entry(const recov_placed* e, uint32_t* item, uint64_t* start, uint64_t* stop) {
  /* Acquire: pairs with the writer's release of the item (the data came before it). */
  uint32_t first = atomic_load_explicit(&e->item, memory_order_acquire);
  if (first == 0 || first == RECOV_PLACED_BUSY) return false;
  *start = atomic_load_explicit(&e->start, DATA_LOAD);
  *stop = *start + atomic_load_explicit(&e->duration, DATA_LOAD);
#if !defined(__SANITIZE_THREAD__)
  /* Acquire fence: the data loads above come before the re-check below (see the protocol). */
  atomic_thread_fence(memory_order_acquire);
#endif
  if (atomic_load_explicit(&e->item, memory_order_relaxed) != first) return false;
  *item = first;
  return true;
}

bool placed_get(const recov_placed_ring* ring, uint32_t item, uint64_t* start, uint64_t* stop) {
  uint32_t got;
  uint64_t a, b;
  if (item == 0 || !read_entry(&ring->entry[item % RECOV_PLACED], &got, &a, &b) || got != item) return false;
  *start = a;
  *stop = b;
  return true;
}

/* The placed item nearest to w on one side: below (from w - 1, or the newest placed item if lower,
 * down to w - RECOV_PLACED + 1, the oldest an entry can still hold) or above (up to the newest
 * placed item). Probes entry by entry; an entry holding another item (not placed, or overwritten) is
 * passed over. */
static bool nearest(const recov_placed_ring* ring, uint32_t w, bool above, uint32_t newest, uint64_t* start,
                    uint64_t* stop) {
  uint32_t j = w;
  if (!above && (int32_t)(newest - w) < 0) j = newest + 1;
  for (;;) {
    j = above ? j + 1 : j - 1;
    if (above ? (int32_t)(j - newest) > 0 : (j == 0 || (int32_t)(w - j) >= RECOV_PLACED)) return false;
    uint32_t got;
    if (read_entry(&ring->entry[j % RECOV_PLACED], &got, start, stop) && got == j) return true;
  }
}

void placed_order_test(const recov_placed_ring* ring, const uint32_t* cands, uint32_t n, uint64_t start,
                       uint64_t stop, uint32_t* start_out, uint32_t* stop_out) {
  uint32_t s_out = 0, p_out = 0;
  /* Relaxed: see placed_put. */
  uint32_t newest = atomic_load_explicit(&ring->newest, memory_order_relaxed);
  for (uint32_t i = 0; i < n && newest != 0; i++) {
    uint64_t js, jp;
    /* Items of a channel run in order, so the placed starts (stops) grow with the item number: the
     * nearest placed item on each side bounds the candidate as tightly as all of them do. */
    if (nearest(ring, cands[i], false, newest, &js, &jp)) {
      if (js > start) s_out |= 1u << i;
      if (jp > stop) p_out |= 1u << i;
    }
    if (nearest(ring, cands[i], true, newest, &js, &jp)) {
      if (js < start) s_out |= 1u << i;
      if (jp < stop) p_out |= 1u << i;
    }
  }
  *start_out = s_out;
  *stop_out = p_out;
}

static inline uint32_t window_tag(uint32_t serial) { return (serial & RECOV_WINDOW_SERIAL_MASK) + 1; }

void window_widen(recov_window windows[RECOV_WINDOWS], uint32_t serial, uint64_t start, uint64_t stop) {
  if (stop <= start) return;
  recov_window* e = &windows[serial % RECOV_WINDOWS];
  uint32_t tag = window_tag(serial);
  /* Acquire: pairs with the last writer's release of the tag, so its span is visible below. */
  uint32_t old = atomic_load_explicit(&e->tag, memory_order_acquire);
  if (old == RECOV_PLACED_BUSY) return;
  /* Already covered (the usual case once a launch has a few channels placed): nothing to write. A
   * span read while another writer widens it is one it had committed or a wider one; spans of one
   * launch only grow, so skipping is right either way. */
  if (old == tag && atomic_load_explicit(&e->lo, DATA_LOAD) <= start && atomic_load_explicit(&e->hi, DATA_LOAD) >= stop) {
    return;
  }
  /* Only a newer launch takes an entry over (in the serial's width, half the range ahead). */
  if (old != 0 && old != tag && ((tag - old) & RECOV_WINDOW_SERIAL_MASK) >= (1u << (RECOV_WINDOW_SERIAL_BITS - 1))) return;
  /* Acquire on success: the previous writer's data (released with its tag) is visible to the
   * widening below. */
  if (!atomic_compare_exchange_strong_explicit(&e->tag, &old, RECOV_PLACED_BUSY, memory_order_acquire,
                                               memory_order_relaxed)) {
    return; /* another writer: this update is skipped (a narrower window is still right) */
  }
#if !defined(__SANITIZE_THREAD__)
  atomic_thread_fence(memory_order_release);
#endif
  uint64_t lo = start, hi = stop;
  if (old == tag) {
    /* Relaxed: only the claimant writes the data, and the claim's acquire made the last values visible. */
    uint64_t l0 = atomic_load_explicit(&e->lo, memory_order_relaxed), h0 = atomic_load_explicit(&e->hi, memory_order_relaxed);
    if (l0 < lo) lo = l0;
    if (h0 > hi) hi = h0;
  }
  atomic_store_explicit(&e->lo, lo, DATA_STORE);
  atomic_store_explicit(&e->hi, hi, DATA_STORE);
  /* Release: a reader that acquires the tag sees the data above. */
  atomic_store_explicit(&e->tag, tag, memory_order_release);
}

bool window_holds(const recov_window windows[RECOV_WINDOWS], uint32_t serial, uint64_t ts) {
  const recov_window* e = &windows[serial % RECOV_WINDOWS];
  uint32_t tag = window_tag(serial);
  /* Acquire: pairs with the writer's release of the tag. */
  if (atomic_load_explicit(&e->tag, memory_order_acquire) != tag) return false;
  uint64_t lo = atomic_load_explicit(&e->lo, DATA_LOAD), hi = atomic_load_explicit(&e->hi, DATA_LOAD);
#if !defined(__SANITIZE_THREAD__)
  /* Acquire fence: the data loads come before the re-check (placed_put's protocol). */
  atomic_thread_fence(memory_order_acquire);
#endif
  if (atomic_load_explicit(&e->tag, memory_order_relaxed) != tag) return false;
  return lo <= ts && ts <= hi;
}
