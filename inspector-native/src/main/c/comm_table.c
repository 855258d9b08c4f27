#include "comm_table.h"

#include <stdlib.h>
#include <string.h>

#include "handles.h"

static inline uint64_t comm_ctl(uint32_t gen, uint32_t state) { return ((uint64_t)gen << 32) | state; }
static inline uint32_t comm_gen(uint64_t c) { return (uint32_t)(c >> 32); }
static inline uint32_t comm_state(uint64_t c) { return (uint32_t)(c & 0xff); }

int comm_table_init(comm_table* t, uint32_t capacity) {
  memset(t, 0, sizeof(*t));
  if (capacity == 0 || capacity > INSPECTOR_MAX_COMM_SLOTS) return -1;
  t->slots = aligned_alloc(64, (size_t)capacity * sizeof(comm_slot));
  if (t->slots == NULL) return -1;
  memset(t->slots, 0, (size_t)capacity * sizeof(comm_slot));
  for (uint32_t i = 0; i < capacity; i++) atomic_init(&t->slots[i].ctl, comm_ctl(1, COMM_FREE));
  t->capacity = capacity;
  atomic_init(&t->live, 0);
  atomic_init(&t->next_serial, 1);
  return 0;
}

void comm_table_destroy(comm_table* t) {
  for (uint32_t i = 0; t->slots != NULL && i < t->capacity; i++) free(t->slots[i].recov_mem);
  free(t->slots);
  t->slots = NULL;
  t->capacity = 0;
}

int64_t comm_table_claim(comm_table* t) {
  for (uint32_t i = 0; i < t->capacity; i++) {
    comm_slot* s = &t->slots[i];
    uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed);
    if (comm_state(c) != COMM_FREE) continue;
    /* Acquire: the previous owner's release in comm_table_release precedes our writes. */
    if (atomic_compare_exchange_strong_explicit(&s->ctl, &c, comm_ctl(comm_gen(c), COMM_INIT),
                                                memory_order_acquire, memory_order_relaxed)) {
      /* Relaxed: the serial only needs to be unique. The counters below start again for the new
       * communicator; relaxed, they are published with the slot (comm_table_publish's release). */
      s->serial = atomic_fetch_add_explicit(&t->next_serial, 1, memory_order_relaxed);
      atomic_store_explicit(&s->p2p_seq, 0, memory_order_relaxed);
      atomic_store_explicit(&s->lag_mask, 0, memory_order_relaxed);
      atomic_store_explicit(&s->work_seq, 0, memory_order_relaxed);
      atomic_store_explicit(&s->api_seq, 0, memory_order_relaxed);
      for (int f = 0; f < COMM_API_FUNCS; f++) atomic_store_explicit(&s->api_func_seq[f], 0, memory_order_relaxed);
      atomic_store_explicit(&s->got_kernel_events, 0, memory_order_relaxed);
      return i;
    }
  }
  return -1;
}

void* comm_table_publish(comm_table* t, uint32_t index) {
  comm_slot* s = &t->slots[index];
  uint32_t gen = comm_gen(atomic_load_explicit(&s->ctl, memory_order_relaxed));
  /* Relaxed: `live` is a count for diagnostics and for deciding when memory may be freed, which
   * happens on the thread that brings it to zero. */
  atomic_fetch_add_explicit(&t->live, 1, memory_order_relaxed);
  /* Release: the fields written in INIT are visible to events that look the context up. */
  atomic_store_explicit(&s->ctl, comm_ctl(gen, COMM_LIVE), memory_order_release);
  return handle_make(HANDLE_TAG_COMM, index, 0, gen);
}

comm_slot* comm_table_lookup(comm_table* t, const void* context) {
  if (handle_tag(context) != HANDLE_TAG_COMM) return NULL;
  uint32_t index = handle_index(context);
  if (index >= t->capacity) return NULL;
  comm_slot* s = &t->slots[index];
  /* Acquire: pairs with the release in comm_table_publish. */
  uint64_t c = atomic_load_explicit(&s->ctl, memory_order_acquire);
  if (comm_gen(c) != handle_gen(context) || comm_state(c) != COMM_LIVE) return NULL;
  return s;
}

comm_slot* comm_table_begin_close(comm_table* t, const void* context) {
  comm_slot* s = comm_table_lookup(t, context);
  if (s == NULL) return NULL;
  uint64_t c = comm_ctl(handle_gen(context), COMM_LIVE);
  /* Acq_rel: a double finalize loses this CAS; the winner sees the slot as published. */
  if (!atomic_compare_exchange_strong_explicit(&s->ctl, &c, comm_ctl(handle_gen(context), COMM_CLOSING),
                                               memory_order_acq_rel, memory_order_relaxed)) {
    return NULL;
  }
  return s;
}

void comm_table_release(comm_table* t, comm_slot* s) {
  uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed);
  uint32_t gen = comm_gen(c) + 1 == 0 ? 1 : comm_gen(c) + 1;
  /* Relaxed decrement: see comm_table_publish. */
  atomic_fetch_sub_explicit(&t->live, 1, memory_order_relaxed);
  /* Release: our last reads of the slot precede its reuse by the next claimer. */
  atomic_store_explicit(&s->ctl, comm_ctl(gen, COMM_FREE), memory_order_release);
}
