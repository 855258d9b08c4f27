#include "api_ledger.h"

#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "core_state.h"
#include "event_counters.h"
#include "handles.h"
#include "names.h"
#include "record_emit.h"

_Static_assert(FUNC_COUNT <= COMM_API_FUNCS, "a call counter for every operation kind");

static inline uint64_t st_make(uint64_t seq, uint64_t state) { return (seq << 2) | state; }
static inline uint64_t st_seq(uint64_t st) { return st >> 2; }
static inline uint32_t st_state(uint64_t st) { return (uint32_t)(st & 3); }

int api_ledger_init(api_ledger* l, uint32_t min_capacity) {
  uint32_t cap = 1024;
  while (cap < min_capacity && cap < (1u << 22)) cap <<= 1;
  l->entries = aligned_alloc(64, (size_t)cap * sizeof(api_entry));
  if (l->entries == NULL) return -1;
  memset(l->entries, 0, (size_t)cap * sizeof(api_entry));
  l->capacity = cap;
  atomic_store_explicit(&l->head, 1, memory_order_relaxed);
  l->tail = 1;
  l->unwritten_tail = 0;
  return 0;
}

void api_ledger_destroy(api_ledger* l) {
  free(l->entries);
  l->entries = NULL;
  l->capacity = 0;
}

void* api_ledger_enter(api_ledger* l, comm_slot* c, const void* context, uint8_t func, uint8_t datatype,
                       uint64_t count, int32_t root, thread_tag tag) {
  /* Relaxed: the number only picks the entry; the entry's state CAS below orders its fields. */
  uint64_t seq = atomic_fetch_add_explicit(&l->head, 1, memory_order_relaxed);
  uint32_t index = (uint32_t)(seq & (l->capacity - 1));
  api_entry* e = &l->entries[index];
  uint64_t st = atomic_load_explicit(&e->state, memory_order_relaxed);
  for (int attempt = 0;; attempt++) {
    uint32_t s = st_state(st);
    /* An entry still PENDING (unlinked a whole ring ago) is not taken; one BUSY (being linked or
     * swept, a few instructions) is retried a few times. */
    if (s == API_PENDING || st_seq(st) >= seq || (s == API_BUSY && attempt >= 16)) {
      counter_add(CTR_API_LEDGER_FULL, 1);
      return NULL;
    }
    if (s == API_BUSY) {
      st = atomic_load_explicit(&e->state, memory_order_relaxed);
      continue;
    }
    /* Acquire: the previous owner's last store (release) is seen before the fields are
     * overwritten. */
    if (atomic_compare_exchange_weak_explicit(&e->state, &st, st_make(seq, API_BUSY), memory_order_acquire,
                                              memory_order_relaxed)) {
      break;
    }
  }
  /* Relaxed: published by the release store of PENDING below. */
  atomic_store_explicit(&e->comm_serial, c->serial, memory_order_relaxed);
  e->count = count;
  e->step = tag.step;
  e->root = root;
  e->comm_index = handle_index(context);
  e->comm_gen = handle_gen(context);
  /* Relaxed: a per-communicator counter; only uniqueness and order per thread matter. */
  e->api_sn = (uint32_t)atomic_fetch_add_explicit(&c->api_seq, 1, memory_order_relaxed);
  e->func_sn = atomic_fetch_add_explicit(&c->api_func_seq[func < COMM_API_FUNCS ? func : 0], 1,
                                         memory_order_relaxed);
  e->phase = tag.phase;
  e->func = func;
  e->datatype = datatype;
  e->start_ns = clock_mono_ns();
  /* Release: the fields above are visible to whoever acquires the entry next. */
  atomic_store_explicit(&e->state, st_make(seq, API_PENDING), memory_order_release);
  /* The next call takes the next entry, one line on: asked for now (a hint, nothing is read). */
  __builtin_prefetch(&l->entries[(seq + 1) & (l->capacity - 1)], 1, 3);
  return handle_make(HANDLE_TAG_LEDGER, index + 1, 0, (uint32_t)seq);
}

/* Takes a PENDING entry whose sequence's low 32 bits are seq_low into BUSY. */
static bool take_pending(api_entry* e, uint64_t* st, uint32_t seq_low) {
  uint64_t cur = atomic_load_explicit(&e->state, memory_order_relaxed);
  if (st_state(cur) != API_PENDING || (uint32_t)st_seq(cur) != seq_low) return false;
  /* Acquire: the writer's fields (published by its release store of PENDING) are visible. */
  if (!atomic_compare_exchange_strong_explicit(&e->state, &cur, (cur & ~3ull) | API_BUSY,
                                               memory_order_acquire, memory_order_relaxed)) {
    return false;
  }
  *st = cur;
  return true;
}

bool api_ledger_link(api_ledger* l, const void* handle, uint64_t comm_serial, thread_tag* tag,
                     uint32_t* api_sn) {
  if (!api_ledger_handle_in_range(l, handle)) {
    counter_add(CTR_INVALID_HANDLE, 1);
    return false;
  }
  api_entry* e = &l->entries[handle_index(handle) - 1];
  uint64_t st;
  if (!take_pending(e, &st, handle_gen(handle))) {
    counter_add(CTR_API_LINK_LATE, 1);
    return false;
  }
  bool mine = atomic_load_explicit(&e->comm_serial, memory_order_relaxed) == comm_serial;
  if (mine) {
    tag->step = e->step;
    tag->phase = e->phase;
    *api_sn = e->api_sn;
  }
  /* Release: hands the entry back (LINKED: reusable) or, not ours, PENDING for its own operation. */
  atomic_store_explicit(&e->state, (st & ~3ull) | (mine ? API_LINKED : API_PENDING), memory_order_release);
  if (!mine) counter_add(CTR_INVALID_HANDLE, 1);
  return mine;
}

/* Emits the record of a BUSY entry and frees it. */
static void close_unlinked(api_entry* e, uint64_t st, const comm_slot* comm) {
  uint64_t serial = atomic_load_explicit(&e->comm_serial, memory_order_relaxed); /* owned: BUSY */
  emit_api_record(comm, e->comm_index, e->comm_gen, serial, e->func, e->datatype, e->count, e->root, e->step,
                  e->phase, e->api_sn, e->func_sn, e->start_ns);
  /* Release: the next writer (acquire) sees this owner done with the fields. */
  atomic_store_explicit(&e->state, st_make(st_seq(st), API_FREE), memory_order_release);
}

uint32_t api_ledger_sweep(api_ledger* l, uint64_t now_ns, uint64_t max_age_ns) {
  uint32_t closed = 0;
  uint64_t head = atomic_load_explicit(&l->head, memory_order_relaxed);
  while (l->tail < head) {
    api_entry* e = &l->entries[l->tail & (l->capacity - 1)];
    /* Acquire: pairs with the writer's release of PENDING, so start_ns is seen. */
    uint64_t st = atomic_load_explicit(&e->state, memory_order_acquire);
    uint64_t seq = st_seq(st);
    if (seq > l->tail) { l->tail++; continue; } /* done and reused already */
    if (seq < l->tail) {
      /* Its writer has not taken it yet, or gave up (the entry was busy): skip it once a second
       * sweep finds it so, rather than wait for ever. */
      if (l->unwritten_tail == l->tail) {
        l->tail++;
        continue;
      }
      l->unwritten_tail = l->tail;
      break;
    }
    uint32_t s = st_state(st);
    if (s == API_BUSY) break;                   /* being written or linked: next sweep */
    if (s == API_PENDING) {
      if (now_ns <= e->start_ns || now_ns - e->start_ns <= max_age_ns) break;
      uint64_t taken;
      if (!take_pending(e, &taken, (uint32_t)seq)) break;
      close_unlinked(e, taken, NULL);
      closed++;
    }
    l->tail++;
  }
  return closed;
}

uint32_t api_ledger_flush(api_ledger* l, const comm_slot* comm) {
  uint64_t comm_serial = comm != NULL ? comm->serial : 0;
  uint32_t closed = 0;
  for (uint32_t i = 0; i < l->capacity; i++) {
    api_entry* e = &l->entries[i];
    uint64_t st = atomic_load_explicit(&e->state, memory_order_relaxed);
    if (st_state(st) != API_PENDING) continue;
    /* Relaxed: a hint; the entry is taken (and owned) only below. */
    if (comm_serial != 0 && atomic_load_explicit(&e->comm_serial, memory_order_relaxed) != comm_serial) continue;
    uint64_t taken;
    if (!take_pending(e, &taken, (uint32_t)st_seq(st))) continue;
    if (comm_serial != 0 && atomic_load_explicit(&e->comm_serial, memory_order_relaxed) != comm_serial) {
      /* Release: rewritten for another communicator meanwhile; back to PENDING unchanged. */
      atomic_store_explicit(&e->state, taken, memory_order_release);
      continue;
    }
    close_unlinked(e, taken, comm);
    closed++;
  }
  return closed;
}
