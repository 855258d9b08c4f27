#include "op_table.h"

#include <stdlib.h>
#include <string.h>

static inline uint64_t top_make(uint32_t counter, uint32_t index_plus_one) {
  return ((uint64_t)counter << 32) | index_plus_one;
}

int op_table_init(op_table* t, uint32_t capacity) {
  memset(t, 0, sizeof(*t));
  if (capacity == 0 || capacity > INSPECTOR_MAX_OP_SLOTS) return -1;
  t->slots = aligned_alloc(64, (size_t)capacity * sizeof(op_slot));
  if (t->slots == NULL) return -1;
  memset(t->slots, 0, (size_t)capacity * sizeof(op_slot));
  for (uint32_t i = 0; i < capacity; i++) {
    atomic_init(&t->slots[i].ctl, ctl_make(1, 0, 0, 0, 0));
    /* Slot 0 on top, then 1, 2, ... */
    atomic_init(&t->slots[i].next_free, i + 1 < capacity ? i + 2 : 0);
  }
  t->capacity = capacity;
  atomic_init(&t->free_top, top_make(0, 1));
  atomic_init(&t->evict_cursor, 0);
  atomic_init(&t->used_bound, 0);
  return 0;
}

void op_table_destroy(op_table* t) {
  free(t->slots);
  t->slots = NULL;
  t->capacity = 0;
}


static void push_free(op_table* t, uint32_t index) {
  /* Relaxed load: the CAS below validates it. */
  uint64_t top = atomic_load_explicit(&t->free_top, memory_order_relaxed);
  for (;;) {
    /* Relaxed: the link is published by the release CAS that makes this slot the top. */
    atomic_store_explicit(&t->slots[index].next_free, (uint32_t)top, memory_order_relaxed);
    uint64_t next = top_make((uint32_t)(top >> 32) + 1, index + 1);
    /* Release: the slot's FREE state and link are visible to the thread that pops it. */
    if (atomic_compare_exchange_weak_explicit(&t->free_top, &top, next, memory_order_release,
                                              memory_order_relaxed)) {
      return;
    }
  }
}

static int64_t pop_free(op_table* t) {
  /* Acquire: pairs with push_free's release, so the top slot's link is the one it pushed. */
  uint64_t top = atomic_load_explicit(&t->free_top, memory_order_acquire);
  for (;;) {
    uint32_t first = (uint32_t)top;
    if (first == 0) return -1;
    /* Relaxed: if another thread popped (and pushed) meanwhile, the counter changed and the CAS
     * fails, so a stale link is never installed. */
    uint32_t link = atomic_load_explicit(&t->slots[first - 1].next_free, memory_order_relaxed);
    uint64_t next = top_make((uint32_t)(top >> 32) + 1, link);
    /* Acquire on success (as above); on failure the reloaded top is acquired too. */
    if (atomic_compare_exchange_weak_explicit(&t->free_top, &top, next, memory_order_acquire,
                                              memory_order_acquire)) {
      return first - 1;
    }
  }
}

int64_t op_table_claim_free(op_table* t) {
  for (;;) {
    int64_t index = pop_free(t);
    if (index < 0) return -1;
    op_slot* s = &t->slots[index];
    /* Relaxed load and store, no CAS: a FREE slot's control word has one writer, the thread that
     * popped it (every other write to a control word is a CAS that requires OPEN, or the owner's
     * store of a CLOSING slot). The previous owner's work happens before ours through the free
     * stack: its op_release stored FREE (release) before push_free's release CAS, which pop_free's
     * acquire CAS read. The check only guards against a broken invariant. */
    uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed);
    if (ctl_flags(c) == 0 && ctl_busy(c) == 0) {
      atomic_store_explicit(&s->ctl, ctl_make(ctl_gen(c), OP_FLAG_INIT, 0, 0, 0), memory_order_relaxed);
      /* Relaxed (see op_table_used_bound); a CAS only while raising, which stops once the table
       * has seen its most operations in flight. */
      uint32_t bound = atomic_load_explicit(&t->used_bound, memory_order_relaxed);
      while ((uint32_t)index >= bound &&
             !atomic_compare_exchange_weak_explicit(&t->used_bound, &bound, (uint32_t)index + 1,
                                                    memory_order_relaxed, memory_order_relaxed)) {
      }
      return index;
    }
  }
}

uint32_t op_table_eviction_candidate(op_table* t) {
  /* Relaxed: the cursor only spreads evictions; the slot's control word decides. */
  return (uint32_t)(atomic_fetch_add_explicit(&t->evict_cursor, 1, memory_order_relaxed) % t->capacity);
}

void* op_publish(op_table* t, uint32_t index) {
  op_slot* s = &t->slots[index];
  uint32_t gen = ctl_gen(atomic_load_explicit(&s->ctl, memory_order_relaxed));
  /* Release: the fields written in INIT are visible to whoever enters with the handle. Nobody
   * else can change an INIT slot, so a plain store is enough. */
  atomic_store_explicit(&s->ctl, ctl_make(gen, OP_FLAG_OPEN, 0, 0, 0), memory_order_release);
  return handle_make(HANDLE_TAG_OP, index, 0, gen);
}

bool op_enter_any(op_slot* s) {
  uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed);
  for (;;) {
    uint32_t f = ctl_flags(c);
    if (!(f & OP_FLAG_OPEN) || (f & OP_FLAG_CLOSING) || ctl_busy(c) == CTL_BUSY_MAX) return false;
    /* Acquire: as in op_enter. */
    if (atomic_compare_exchange_weak_explicit(&s->ctl, &c, c + 1, memory_order_acquire,
                                              memory_order_relaxed)) {
      return true;
    }
  }
}

bool op_leave_and_close(op_slot* s, bool* completed) {
  *completed = false;
  uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed);
  for (;;) {
    if (ctl_busy(c) != 1) {
      *completed = op_leave(s, 0, 0);
      return *completed;
    }
    uint64_t n = ctl_make_p(ctl_gen(c), ctl_proxy_open(c), ctl_flags(c) | OP_FLAG_CLOSING, ctl_done(c),
                            ctl_started(c), 0);
    /* Acq_rel: as in op_leave when it completes. */
    if (atomic_compare_exchange_weak_explicit(&s->ctl, &c, n, memory_order_acq_rel,
                                              memory_order_relaxed)) {
      return true;
    }
  }
}

void op_release(op_table* t, op_slot* s) {
  uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed);
  /* Release: our reads of the slot happen before the next owner's writes (it acquires in
   * op_table_claim_free). Only the owner writes a CLOSING slot, so a store is enough. */
  atomic_store_explicit(&s->ctl, ctl_make(ctl_gen(c) + 1 == 0 ? 1 : ctl_gen(c) + 1, 0, 0, 0, 0),
                        memory_order_release);
  push_free(t, (uint32_t)(s - t->slots));
}

void op_recycle_owned(op_slot* s) {
  uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed);
  uint32_t gen = ctl_gen(c) + 1 == 0 ? 1 : ctl_gen(c) + 1;
  /* Relaxed: the slot stays owned by this thread (INIT); op_publish releases it later. */
  atomic_store_explicit(&s->ctl, ctl_make(gen, OP_FLAG_INIT, 0, 0, 0), memory_order_relaxed);
}
