#include "op_table.h"

#include <stdlib.h>
#include <string.h>

int op_table_init(op_table* t, uint32_t capacity) {
  memset(t, 0, sizeof(*t));
  if (capacity == 0 || capacity > INSPECTOR_MAX_OP_SLOTS) return -1;
  t->slots = aligned_alloc(64, (size_t)capacity * sizeof(op_slot));
  if (t->slots == NULL) return -1;
  memset(t->slots, 0, (size_t)capacity * sizeof(op_slot));
  for (uint32_t i = 0; i < capacity; i++) atomic_init(&t->slots[i].ctl, ctl_make(1, 0, 0, 0, 0));
  t->capacity = capacity;
  atomic_init(&t->cursor, 0);
  return 0;
}

void op_table_destroy(op_table* t) {
  free(t->slots);
  t->slots = NULL;
  t->capacity = 0;
}

static bool try_claim(op_slot* s) {
  uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed);
  if (ctl_flags(c) != 0 || ctl_busy(c) != 0) return false;
  /* Acquire: the previous owner's release (op_release) happens before we reuse its memory. */
  return atomic_compare_exchange_strong_explicit(&s->ctl, &c, ctl_make(ctl_gen(c), OP_FLAG_INIT, 0, 0, 0),
                                                 memory_order_acquire, memory_order_relaxed);
}

int64_t op_table_claim_free(op_table* t, uint32_t probes, uint32_t* first_probe) {
  uint32_t index = 0;
  for (uint32_t i = 0; i < probes; i++) {
    /* Relaxed: the cursor only spreads allocations; the CAS on the slot decides ownership. */
    uint64_t pos = atomic_fetch_add_explicit(&t->cursor, 1, memory_order_relaxed);
    index = (uint32_t)(pos % t->capacity);
    if (i == 0) *first_probe = index;
    if (try_claim(&t->slots[index])) return index;
  }
  /* The slots at the cursor are all in flight (operations completing out of order): look a bit
   * further, without moving the cursor, before anything is evicted. */
  for (uint32_t k = 1; k <= OP_TABLE_SCAN && k < t->capacity; k++) {
    uint32_t i = (index + k) % t->capacity;
    if (try_claim(&t->slots[i])) return i;
  }
  return -1;
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
    uint64_t n = ctl_make(ctl_gen(c), ctl_flags(c) | OP_FLAG_CLOSING, ctl_done(c), ctl_started(c), 0);
    /* Acq_rel: as in op_leave when it completes. */
    if (atomic_compare_exchange_weak_explicit(&s->ctl, &c, n, memory_order_acq_rel,
                                              memory_order_relaxed)) {
      return true;
    }
  }
}

void op_release(op_slot* s) {
  uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed);
  /* Release: our reads of the slot happen before the next owner's writes (it acquires in
   * op_table_claim_free). Only the owner writes a CLOSING slot, so a store is enough. */
  atomic_store_explicit(&s->ctl, ctl_make(ctl_gen(c) + 1 == 0 ? 1 : ctl_gen(c) + 1, 0, 0, 0, 0),
                        memory_order_release);
}

void op_recycle_owned(op_slot* s) {
  uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed);
  uint32_t gen = ctl_gen(c) + 1 == 0 ? 1 : ctl_gen(c) + 1;
  /* Relaxed: the slot stays owned by this thread (INIT); op_publish releases it later. */
  atomic_store_explicit(&s->ctl, ctl_make(gen, OP_FLAG_INIT, 0, 0, 0), memory_order_relaxed);
}
