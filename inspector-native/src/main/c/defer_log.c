#include "defer_log.h"

#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "clock.h"
#include "core_state.h"
#include "event_counters.h"
#include "handles.h"
#include "kernel_records.h"
#include "launch_clock.h"
#include "names.h"
#include "op_table.h"
#include "proxy_breakdown.h"
#include "record_format.h"
#include "thread_tags.h"
#include "tsc_clock.h"

_Thread_local defer_clock tls_defer_clock;

/* What an entry replays. */
enum {
  DEFER_PAD = 0, /* fills the end of a log before an entry of two units */
  DEFER_OP_START,
  DEFER_CHANNEL_START,
  DEFER_COLL_API,
  DEFER_LAUNCH,
  DEFER_PROXY_OP,
  DEFER_PROXY_STEP,
  DEFER_GPU_STOP,
  DEFER_STEP_STATE,
  DEFER_STOP,
  DEFER_FINALIZE,
  DEFER_OWNER /* a new thread took the log over from one that exited: its launch clock starts anew */
};

/* One 64-byte unit; an operation start and a collective call take two. */
typedef struct defer_unit {
  uint8_t op;    /* DEFER_* */
  uint8_t units; /* 1 or 2 */
  uint8_t b0, b1, b2, b3, b4, b5;
  uint16_t phase; /* the caller's phase tag */
  uint16_t clock; /* STAMP_TSC | generation: `stamp` is a counter reading (tsc_clock.h); 0: nanoseconds */
  int32_t i32;
  uint64_t stamp;  /* the call's time: clock_mono_ns (real or virtual), or the counter (see clock) */
  uint64_t handle; /* the log handle a start handed out (0: it handed out NULL) */
  uint64_t ref;    /* the context, the parent or the handle the call names */
  uint64_t a, b, c;
} defer_unit;
_Static_assert(sizeof(defer_unit) == 64, "a unit is a cache line");

/* The second unit of an operation start. */
typedef struct defer_op_body {
  const char* func;
  const char* datatype;
  const char* algo;
  const char* proto;
  uint64_t seq;
  uint64_t count;
  uint64_t parent;
  int64_t step; /* the caller's step tag */
} defer_op_body;
_Static_assert(sizeof(defer_op_body) == 64, "the body is a unit");

enum { LOG_FREE = 0, LOG_OWNED = 1, LOG_RETIRED = 2 };

typedef struct defer_log {
  /* Producer side: its owner thread. */
  _Alignas(64) _Atomic uint64_t tail; /* release-stored after the units it publishes */
  uint64_t head_cache;                /* the consumer's head as last read (owner only) */
  /* The units, the writer's copy: every call reads it, so it lies on this line, which only the
   * writer stores to. Read from the consumer's line instead, it missed on each call after the
   * consumer's store of its head had taken that line. */
  defer_unit* wunits;
  /* Consumer side. */
  _Alignas(64) _Atomic uint64_t head; /* release-stored after the units it read */
  _Atomic int state;                  /* LOG_* */
  uint64_t snapshot;                  /* the tail this round replays up to (consumer only) */
  uint64_t launch_ns;                 /* the owner's last launch, as launch_clock keeps it */
  uint32_t launch_epoch;
  defer_unit* units; /* the consumer's copy */
} defer_log;
/* What each side reads on every call or entry lies on its own line, away from the other side's
 * stores. */
_Static_assert(offsetof(defer_log, wunits) / 64 == offsetof(defer_log, tail) / 64, "the writer's line");
_Static_assert(offsetof(defer_log, head) / 64 != offsetof(defer_log, tail) / 64, "two lines");
_Static_assert(offsetof(defer_log, units) / 64 == offsetof(defer_log, head) / 64, "the consumer's line");

/* The owned logs, then the shared one. */
#define LOGS_ALL (DEFER_LOGS + 1)
#define SHARED_LOG DEFER_LOGS
static defer_log g_logs[LOGS_ALL];
static defer_unit* g_units;                 /* LOGS_ALL * DEFER_LOG_UNITS, mapped once */
/* Held by a writer of the shared log from its claim to its publish, so that the log's entries are
 * written one at a time and in the order of their clock readings (taken under it). */
static pthread_mutex_t g_shared_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local defer_log* tls_log;
static pthread_key_t g_exit_key;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

typedef struct map_entry {
  uint64_t key;   /* a log handle; 0: empty */
  uint64_t value; /* the core's handle for it (0: the core returned NULL) */
  uint64_t born;  /* the start's time */
} map_entry;
static map_entry* g_map; /* consumer only (under g_consumer_lock) */
static uint32_t g_map_count, g_map_cursor;

static pthread_mutex_t g_consumer_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t g_consumer;
static _Atomic int g_consumer_run;
static _Atomic int g_consumer_hold; /* tests: no rounds while set */
/* Finalizes logged and not yet replayed (or discarded): a communicator's init replays the logs
 * first only while there are any (defer_finalize_pending). */
static _Atomic uint64_t g_finalizes_pending;
static int g_consumer_started;
static uint64_t g_replayed; /* entries replayed (under g_consumer_lock) */

/* Entries stamped within this much of now wait for the next round: a producer may still be between
 * its clock read and its publish. */
#define HOLD_NS 20000ull
/* Thread-tag and empty results leave the map after this age (their references come within one
 * launch); handles of the operation table and the call ledger leave it once stale. */
#define MAP_AGE_NS 10000000000ull
#define STAMP_TSC 0x8000u
#define POS_BITS 54
#define POS_MASK ((1ull << POS_BITS) - 1)

static inline uint64_t log_handle(uint32_t log, uint64_t pos) {
  return ((uint64_t)(log + 1) << 56) | ((pos & POS_MASK) << 2) | 1u;
}
static inline int32_t log_of(uint64_t h) { return (int32_t)(h >> 56) - 1; }
static inline uint64_t pos_of(uint64_t h) { return (h >> 2) & POS_MASK; }

/* ---- producer ---- */

static void on_thread_exit(void* arg) {
  defer_log* l = arg;
  /* Release: the units it published are visible before the consumer may hand the log on. */
  atomic_store_explicit(&l->state, LOG_RETIRED, memory_order_release);
}

static void make_key(void) { pthread_key_create(&g_exit_key, on_thread_exit); }

static defer_unit* claim(defer_log* l, uint32_t n, uint64_t* pos_out);
static inline void publish(defer_log* l, uint64_t pos, uint32_t n);
static inline void stamp_unit(defer_unit* u);

/* Makes log l, just claimed in state `from`, the calling thread's. */
static defer_log* own(defer_log* l, int from) {
  /* Acquire: the consumer's reads of the units below its head are done (a new owner
   * overwrites them). */
  l->head_cache = atomic_load_explicit(&l->head, memory_order_acquire);
  tls_log = l;
  pthread_setspecific(g_exit_key, l);
  if (from == LOG_RETIRED) {
    counter_add(CTR_DEFER_TAKEN_OVER, 1);
    /* The exited owner's entries may not all be replayed yet: the consumer keeps the launch clock
     * it replays them with until this entry, then starts the new owner's from none, as it does
     * for a freed log. If the log is full the marker is lost (counted): the new owner's first
     * operations may then be checked against the old owner's last launch, which the core's
     * launch checks treat as a launch on another thread (weaker, never wrong). */
    uint64_t pos;
    defer_unit* u = claim(l, 1, &pos);
    if (u != NULL) {
      u->op = DEFER_OWNER;
      u->units = 1;
      u->handle = 0;
      stamp_unit(u); /* not read (a marker has no time of its own): no field left from the unit's last entry */
      publish(l, pos, 1);
    }
  }
  return l;
}

/* A free log, now the calling thread's (given back when it exits), or NULL when every log is
 * owned. A free log first; else one whose thread has exited but whose entries the consumer has not
 * read to the end yet (threads that come and go faster than the consumer's rounds, as NCCL's
 * async-job threads can, would otherwise run out of logs while most of them wait to be freed). */
static defer_log* claim_owned(void) {
  pthread_once(&g_key_once, make_key);
  static const int takes[] = {LOG_FREE, LOG_RETIRED}; /* in this order */
  for (uint32_t k = 0; k < 2; k++) {
    int from = takes[k];
    for (uint32_t i = 0; i < DEFER_LOGS; i++) {
      int expected = from;
      /* Acquire: the previous owner's (its tail, and a retired log's units) and the consumer's
       * use of the log happened before; the consumer frees a retired log by a compare-and-swap
       * too, so only one of it and this thread moves it on. */
      if (atomic_compare_exchange_strong_explicit(&g_logs[i].state, &expected, LOG_OWNED, memory_order_acquire,
                                                  memory_order_relaxed)) {
        return own(&g_logs[i], from);
      }
    }
  }
  return NULL;
}

/* A thread's first call: claims a log; the shared log (counted) when every log is owned. */
static __attribute__((noinline)) defer_log* claim_log(void) {
  defer_log* l = claim_owned();
  if (l != NULL) return l;
  counter_add(CTR_DEFER_SHARED_LOG, 1);
  tls_log = &g_logs[SHARED_LOG];
  return tls_log;
}

/* A thread on the shared log looks for a log of its own again once every this many calls (a pass
 * over the logs' states), so that it stops paying the shared log's lock once threads that exited
 * have given theirs back. Its entries stay in clock order across the move: the consumer merges the
 * logs by their clock readings, and each of the thread's readings follows its last. */
#define SHARED_RETRY_CALLS 4096u
static _Thread_local uint32_t tls_shared_calls;

static inline bool is_shared(const defer_log* l) { return l == &g_logs[SHARED_LOG]; }

/* For a call of a thread on the shared log: the thread's own log if it could claim one now;
 * else the shared log, with its lock taken. shared_exit gives back what this took. */
static inline defer_log* shared_enter(void) {
  if (++tls_shared_calls % SHARED_RETRY_CALLS == 0) {
    defer_log* own = claim_owned();
    if (own != NULL) return own;
  }
  pthread_mutex_lock(&g_shared_lock);
  return &g_logs[SHARED_LOG];
}

static inline void shared_exit(defer_log* l) {
  if (is_shared(l)) pthread_mutex_unlock(&g_shared_lock);
}

/* The calling thread's log, claimed at its first call (the shared log when every log is owned):
 * never NULL. An owned log has one writer; the shared log's writers go through the *_shared
 * functions below, which hold g_shared_lock from the entry's claim to its publish. That lock is
 * taken before the consumer's (help_consumer), never after. */
static inline __attribute__((always_inline)) defer_log* log_of_thread(void) {
  defer_log* l = tls_log;
  return INSPECTOR_LIKELY(l != NULL) ? l : claim_log();
}

static void help_consumer(void);

/* Room for n units at the tail (padding the log's end if the entry would wrap): the first unit, or
 * NULL (counted) when the consumer is a whole log behind. */
static inline __attribute__((always_inline)) defer_unit* claim(defer_log* l, uint32_t n, uint64_t* pos_out) {
  /* Relaxed: the writer's own variable (the shared log's writers take turns under its lock). */
  uint64_t tail = atomic_load_explicit(&l->tail, memory_order_relaxed);
  uint32_t offset = (uint32_t)(tail & (DEFER_LOG_UNITS - 1));
  uint32_t pad = (n > 1 && offset + n > DEFER_LOG_UNITS) ? DEFER_LOG_UNITS - offset : 0;
  if (INSPECTOR_UNLIKELY(tail + pad + n - l->head_cache > DEFER_LOG_UNITS)) {
    /* Acquire: the consumer's reads of those units are done before they are overwritten. */
    l->head_cache = atomic_load_explicit(&l->head, memory_order_acquire);
    if (tail + pad + n - l->head_cache > DEFER_LOG_UNITS) {
      /* The consumer is a whole log behind (calls faster than it replays them, or it was off the
       * CPU): this thread replays the logs itself, under the consumer's lock, then tries again.
       * The only wait on this path, and only while the log is full. */
      counter_add(CTR_DEFER_HELPED, 1);
      help_consumer();
      l->head_cache = atomic_load_explicit(&l->head, memory_order_acquire); /* as above */
      if (tail + pad + n - l->head_cache > DEFER_LOG_UNITS) {
        counter_add(CTR_DEFER_LOG_FULL, 1);
        return NULL;
      }
    }
  }
  if (pad != 0) {
    for (uint32_t i = 0; i < pad; i++) {
      defer_unit* p = &l->wunits[(tail + i) & (DEFER_LOG_UNITS - 1)];
      p->op = DEFER_PAD;
      p->units = 1;
    }
    tail += pad;
  }
  *pos_out = tail;
  return &l->wunits[tail & (DEFER_LOG_UNITS - 1)];
}

static inline void publish(defer_log* l, uint64_t pos, uint32_t n) {
  /* Release: the entry's fields (and any padding) before the consumer sees the new tail. */
  atomic_store_explicit(&l->tail, pos + n, memory_order_release);
}

static inline uint32_t log_index(const defer_log* l) { return (uint32_t)(l - g_logs); }

/* The call's time and the wall offset in force. Where the time-stamp counter clock is in use (and
 * no virtual clock), the counter alone and its parameters' generation: the consumer scales it as
 * clock_mono_ns would have then, and the call is spared the scaling (a third of its cost). */
static inline void stamp_unit(defer_unit* u) {
  uint32_t gen = 0;
  uint64_t tsc = clock_is_virtual() ? 0 : tsc_clock_stamp(&gen);
  if (tsc != 0) {
    u->stamp = tsc;
    u->clock = (uint16_t)(STAMP_TSC | gen);
  } else {
    u->stamp = clock_mono_raw_ns();
    u->clock = 0;
  }
}

/* An entry's time in clock_mono_ns nanoseconds (consumer). */
static inline uint64_t entry_ns(const defer_unit* u) {
  return (u->clock & STAMP_TSC) ? tsc_clock_convert_stamp(u->stamp, u->clock & 0x7fffu) : u->stamp;
}

/* A one-unit entry naming `ref` in log l; returns its handle (0 if it could not be logged). */
static inline __attribute__((always_inline)) uint64_t log_simple_in(defer_log* l, uint8_t op, uint64_t ref, uint64_t a, int32_t i32, uint8_t b0,
                              uint8_t b1, bool hands_out) {
  uint64_t pos;
  defer_unit* u = claim(l, 1, &pos);
  if (u == NULL) return 0;
  uint64_t h = hands_out ? log_handle(log_index(l), pos) : 0;
  u->op = op;
  u->units = 1;
  u->b0 = b0;
  u->b1 = b1;
  u->b5 = CORE_ENABLED; /* the state at the call: read by the core at operation and call starts only */
  u->i32 = i32;
  stamp_unit(u);
  u->handle = h;
  u->ref = ref;
  u->a = a;
  u->c = (uint64_t)clock_wall_offset();
  publish(l, pos, 1);
  return h;
}

static __attribute__((noinline)) uint64_t log_simple_shared(uint8_t op, uint64_t ref, uint64_t a, int32_t i32,
                                                            uint8_t b0, uint8_t b1, bool hands_out) {
  defer_log* l = shared_enter();
  uint64_t h = log_simple_in(l, op, ref, a, i32, b0, b1, hands_out);
  shared_exit(l);
  return h;
}

static inline __attribute__((always_inline)) uint64_t log_simple(uint8_t op, uint64_t ref, uint64_t a, int32_t i32, uint8_t b0, uint8_t b1,
                           bool hands_out) {
  defer_log* l = log_of_thread();
  if (INSPECTOR_UNLIKELY(is_shared(l))) return log_simple_shared(op, ref, a, i32, b0, b1, hands_out);
  return log_simple_in(l, op, ref, a, i32, b0, b1, hands_out);
}

/* Whether the core would leave the operation untracked for a reason the call itself shows: it is
 * then still logged (recovery numbers every operation) but gets no handle, so NCCL makes no
 * children for it, as in the synchronous mode. */
static bool op_untracked(const core_op_event* ev, int state, uint64_t min_size_bytes) {
  if (state != CORE_ENABLED) return true;
  if (ev->kind == RECORD_KIND_P2P && !atomic_load_explicit(&g_core.enable_p2p, memory_order_relaxed)) return true;
  uint32_t size = names_datatype_size(names_datatype_id(ev->datatype));
  if (size == 0 || ev->count > UINT64_MAX / size) return true;
  return ev->count == 0 || ev->count * size < min_size_bytes;
}

static inline __attribute__((always_inline)) void* op_start_in(defer_log* l, void* context, const core_op_event* ev);

static __attribute__((noinline)) void* op_start_shared(void* context, const core_op_event* ev) {
  defer_log* l = shared_enter();
  void* h = op_start_in(l, context, ev);
  shared_exit(l);
  return h;
}

void* defer_op_start(void* context, const core_op_event* ev) {
  if (context == NULL) return NULL;
  defer_log* l = log_of_thread();
  if (INSPECTOR_UNLIKELY(is_shared(l))) return op_start_shared(context, ev);
  return op_start_in(l, context, ev);
}

static inline __attribute__((always_inline)) void* op_start_in(defer_log* l, void* context, const core_op_event* ev) {
  uint64_t pos;
  defer_unit* u = claim(l, 2, &pos);
  if (u == NULL) return NULL;
  /* One reading of the state and of the minimum size for both the handle and the entry: the
   * replay then takes the operation as the call did. Relaxed: an independent setting, as the
   * core reads it. */
  int state = core_state_now();
  uint64_t min_size = atomic_load_explicit(&g_core.min_size_bytes, memory_order_relaxed);
  uint64_t h = op_untracked(ev, state, min_size) ? 0 : log_handle(log_index(l), pos);
  thread_tag tag = tags_of_current_thread();
  u->op = DEFER_OP_START;
  u->units = 2;
  u->b0 = ev->kind;
  u->b1 = ev->n_channels;
  u->b2 = ev->n_warps;
  u->b3 = ev->channel_mode;
  u->b4 = ev->copy_engine;
  u->b5 = (uint8_t)state;
  u->phase = tag.phase;
  u->i32 = ev->peer_or_root;
  stamp_unit(u);
  u->handle = h;
  u->ref = (uint64_t)(uintptr_t)context;
  /* CUPTI's launch id is the launching thread's (kernel_records.h): taken here. */
  u->a = kernel_records_op_launch();
  u->b = min_size;
  u->c = (uint64_t)clock_wall_offset();
  defer_op_body* body = (defer_op_body*)&l->wunits[(pos + 1) & (DEFER_LOG_UNITS - 1)];
  body->func = ev->func;
  body->datatype = ev->datatype;
  body->algo = ev->algo;
  body->proto = ev->proto;
  body->seq = ev->seq;
  body->count = ev->count;
  body->parent = (uint64_t)(uintptr_t)ev->parent;
  body->step = tag.step;
  publish(l, pos, 2);
  return (void*)(uintptr_t)h;
}

/* Whether a parent is one of the log handles this mode hands out. Any other value is still logged,
 * for the core to judge and count as it would, but gets no handle: NCCL makes no children for it. */
static inline bool is_log_handle(const void* h) {
  uint64_t v = (uint64_t)(uintptr_t)h;
  return (v & 3u) == 1u && log_of(v) >= 0 && log_of(v) < LOGS_ALL;
}

void* defer_channel_start(void* parent, uint8_t channel_id, uint64_t gpu_start_ns) {
  if (parent == NULL) return NULL; /* the operation was not tracked */
  return (void*)(uintptr_t)log_simple(DEFER_CHANNEL_START, (uint64_t)(uintptr_t)parent, gpu_start_ns, 0, channel_id,
                                      0, is_log_handle(parent));
}

static inline __attribute__((always_inline)) void* coll_api_start_in(defer_log* l, void* context, const char* func,
                                                                    const char* datatype, uint64_t count, int32_t root,
                                                                    bool graph_captured, thread_tag tag);

static __attribute__((noinline)) void* coll_api_start_shared(void* context, const char* func, const char* datatype,
                                                             uint64_t count, int32_t root, bool graph_captured,
                                                             thread_tag tag) {
  defer_log* l = shared_enter();
  void* h = coll_api_start_in(l, context, func, datatype, count, root, graph_captured, tag);
  shared_exit(l);
  return h;
}

void* defer_coll_api_start(void* context, const char* func, const char* datatype, uint64_t count, int32_t root,
                           bool graph_captured) {
  thread_tag tag = tags_of_current_thread();
  if (context == NULL) return tags_encode(tag, graph_captured);
  defer_log* l = log_of_thread();
  if (INSPECTOR_UNLIKELY(is_shared(l))) {
    return coll_api_start_shared(context, func, datatype, count, root, graph_captured, tag);
  }
  return coll_api_start_in(l, context, func, datatype, count, root, graph_captured, tag);
}

static inline __attribute__((always_inline)) void* coll_api_start_in(defer_log* l, void* context, const char* func,
                                                                    const char* datatype, uint64_t count, int32_t root,
                                                                    bool graph_captured, thread_tag tag) {
  uint64_t pos;
  defer_unit* u = claim(l, 2, &pos);
  if (u == NULL) return tags_encode(tag, graph_captured);
  /* A graph's replays name its handle for ever, and a call the ledger will not take gets the tag:
   * both are made here, as the core would make them. */
  int state = core_state_now();
  bool ledger = !graph_captured && state == CORE_ENABLED;
  uint64_t h = ledger ? log_handle(log_index(l), pos) : 0;
  u->op = DEFER_COLL_API;
  u->units = 2;
  u->b0 = graph_captured;
  u->b5 = (uint8_t)state;
  u->phase = tag.phase;
  u->i32 = root;
  stamp_unit(u);
  u->handle = h;
  u->ref = (uint64_t)(uintptr_t)context;
  u->a = (uint64_t)(uintptr_t)func;
  u->b = (uint64_t)(uintptr_t)datatype;
  u->c = count;
  defer_op_body* body = (defer_op_body*)&l->wunits[(pos + 1) & (DEFER_LOG_UNITS - 1)];
  body->step = tag.step;
  body->seq = (uint64_t)clock_wall_offset(); /* the wall offset: a, b and c are taken */
  publish(l, pos, 2);
  return ledger ? (void*)(uintptr_t)h : tags_encode(tag, graph_captured);
}

void* defer_launch_start(void* context) {
  log_simple(DEFER_LAUNCH, (uint64_t)(uintptr_t)context, 0, 0, 0, 0, false);
  /* CUPTI's external id goes on the launching thread's own stack. */
  return kernel_records_launch_start() ? KERNEL_LAUNCH_HANDLE : NULL;
}

void* defer_proxy_op_start(void* parent, uint8_t channel_id, int32_t peer, int32_t n_steps, int is_send) {
  if (parent == NULL) return NULL;
  return (void*)(uintptr_t)log_simple(DEFER_PROXY_OP, (uint64_t)(uintptr_t)parent, (uint64_t)(uint32_t)n_steps, peer,
                                      channel_id, is_send != 0, is_log_handle(parent));
}

void* defer_proxy_step_start(void* parent, int32_t step) {
  if (parent == NULL) return NULL;
  return (void*)(uintptr_t)log_simple(DEFER_PROXY_STEP, (uint64_t)(uintptr_t)parent, 0, step, 0, 0,
                                      is_log_handle(parent));
}

void defer_channel_gpu_stop(void* handle, uint64_t gpu_stop_ns) {
  if (handle == NULL) return;
  log_simple(DEFER_GPU_STOP, (uint64_t)(uintptr_t)handle, gpu_stop_ns, 0, 0, 0, false);
}

void defer_proxy_step_state(void* handle, int state, uint64_t trans_size) {
  if (handle == NULL) return;
  log_simple(DEFER_STEP_STATE, (uint64_t)(uintptr_t)handle, trans_size, state, 0, 0, false);
}

/* A stop's entry; before it, an operation's launch made final for CUPTI (see defer_stop). */
static inline __attribute__((always_inline)) void stop_in(defer_log* l, uint64_t v) {
  if (kernel_records_active() && is_log_handle((void*)(uintptr_t)v) && (uint32_t)log_of(v) == log_index(l)) {
    uint64_t pos = pos_of(v);
    /* Relaxed: the writer's own variable (the shared log's under its lock). */
    uint64_t tail = atomic_load_explicit(&l->tail, memory_order_relaxed);
    if (pos < tail && tail - pos < DEFER_LOG_UNITS - 2) {
      const defer_unit* start = &l->wunits[pos & (DEFER_LOG_UNITS - 1)];
      if (start->op == DEFER_OP_START && start->handle == v && start->a != 0) kernel_records_op_stopped(start->a);
    }
  }
  log_simple_in(l, DEFER_STOP, v, 0, 0, 0, 0, false);
}

/* The shared log's start entry is read under its lock too. */
static __attribute__((noinline)) void stop_shared(defer_log* l, uint64_t v) {
  pthread_mutex_lock(&g_shared_lock);
  stop_in(l, v);
  pthread_mutex_unlock(&g_shared_lock);
}

void defer_stop(void* handle) {
  if (handle == NULL) return;
  if (handle == KERNEL_LAUNCH_HANDLE) {
    core_stop(handle); /* unnames the launch on this thread (CUPTI's stack) */
    return;
  }
  if (handle_tag(handle) == HANDLE_TAG_API) return; /* a thread tag: nothing to stop */
  /* An operation's stop makes its launch's operation count final for CUPTI's join at once, as in
   * the synchronous mode (kernel_records.h): the launch id is in its start entry, still in this
   * thread's log when the same thread stops it (NCCL starts and stops an operation on one thread).
   * Its replay marks it again, which changes nothing. */
  uint64_t v = (uint64_t)(uintptr_t)handle;
  defer_log* l = log_of_thread();
  if (INSPECTOR_UNLIKELY(is_shared(l))) {
    stop_shared(l, v);
    return;
  }
  stop_in(l, v);
}

void defer_comm_finalize(void* context) {
  if (context == NULL) return;
  /* Replayed in its place, after the calls made before it (the proxy thread's last readings among
   * them); the core keeps the communicator until then. Where it cannot be logged, everything
   * logged is replayed first and the communicator finalized now. */
  /* Counted before it is logged, so that no replay can take it off first. Release: an init that
   * the application orders after this finalize (on this thread, or after synchronizing with it)
   * sees the count (acquire there). */
  atomic_fetch_add_explicit(&g_finalizes_pending, 1, memory_order_release);
  if (log_simple(DEFER_FINALIZE, (uint64_t)(uintptr_t)context, 0, 0, 0, 0, true) == 0) {
    atomic_fetch_sub_explicit(&g_finalizes_pending, 1, memory_order_relaxed); /* not logged */
    defer_flush();
    core_comm_finalize(context);
  }
}

bool defer_finalize_pending(void) {
  /* Acquire: pairs with the finalize's count (above). */
  return atomic_load_explicit(&g_finalizes_pending, memory_order_acquire) != 0;
}

/* ---- the handle map (consumer only) ---- */

/* A log handle's first slot: its position in the log, from a starting point of its own per log.
 * The starts of a log follow each other in the table as they do in the log, so the entries in use
 * (those of the last few thousand starts) lie close together and the replay's lookups mostly hit
 * the cache; a spread-out hash made each of them a miss. */
static inline uint32_t map_home(uint64_t key) {
  return (uint32_t)((pos_of(key) + (key >> 56) * 0x9E3779B1u) & (DEFER_MAP_SIZE - 1));
}

static void map_put(uint64_t key, uint64_t value, uint64_t born) {
  if (g_map_count >= DEFER_MAP_SIZE / 4 * 3) {
    counter_add(CTR_DEFER_MAP_FULL, 1);
    return;
  }
  uint32_t i = map_home(key);
  while (g_map[i].key != 0 && g_map[i].key != key) i = (i + 1) & (DEFER_MAP_SIZE - 1);
  if (g_map[i].key == 0) g_map_count++;
  g_map[i].key = key;
  g_map[i].value = value;
  g_map[i].born = born;
}

static map_entry* map_get(uint64_t key) {
  uint32_t i = map_home(key);
  while (g_map[i].key != 0) {
    if (g_map[i].key == key) return &g_map[i];
    i = (i + 1) & (DEFER_MAP_SIZE - 1);
  }
  return NULL;
}

/* Removes entry i, moving later entries of its probe run back so that no lookup stops short. */
static void map_remove(uint32_t i) {
  uint32_t hole = i;
  uint32_t j = i;
  for (;;) {
    j = (j + 1) & (DEFER_MAP_SIZE - 1);
    if (g_map[j].key == 0) break;
    uint32_t home = map_home(g_map[j].key);
    /* Entry j may fill the hole if its home is not cyclically within (hole, j]. */
    bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!stays) {
      g_map[hole] = g_map[j];
      hole = j;
    }
  }
  g_map[hole].key = 0;
  g_map_count--;
}

/* Whether the core's handle can no longer name what it named: its operation slot moved on, or
 * its ledger entry went to another call. Thread tags and empty results go by age. */
static bool core_handle_stale(uint64_t v, uint64_t born, uint64_t now) {
  const void* h = (const void*)(uintptr_t)v;
  if (v != 0 && (handle_tag(h) == HANDLE_TAG_OP || handle_tag(h) == HANDLE_TAG_CHANNEL)) {
    uint32_t index = handle_tag(h) == HANDLE_TAG_CHANNEL && proxy_handle_is(h) ? proxy_handle_slot(h) : handle_index(h);
    if (index >= g_core.ops.capacity) return true;
    /* Relaxed: a stale answer only keeps an entry one sweep longer or drops one that the core
     * would find stale anyway. */
    return ctl_gen(atomic_load_explicit(&g_core.ops.slots[index].ctl, memory_order_relaxed)) != handle_gen(h);
  }
  if (v != 0 && handle_tag(h) == HANDLE_TAG_LEDGER && v != (uint64_t)(uintptr_t)KERNEL_LAUNCH_HANDLE) {
    uint32_t index = handle_index(h);
    if (index == 0 || index > g_core.ledger.capacity) return true;
    /* Relaxed: as above. */
    uint64_t st = atomic_load_explicit(&g_core.ledger.entries[index - 1].state, memory_order_relaxed);
    /* Gone once the entry holds another call: a link to a closed call is counted late by the
     * core (api_link_late), so the handle must reach it until then. */
    return (uint32_t)(st >> 2) != handle_gen(h);
  }
  return now > born && now - born > MAP_AGE_NS;
}

/* Looks at up to n entries from the sweep's position on. */
static void map_sweep(uint32_t n, uint64_t now) {
  for (uint32_t k = 0; k < n && g_map_count > 0; k++) {
    uint32_t i = g_map_cursor;
    if (g_map[i].key != 0 && core_handle_stale(g_map[i].value, g_map[i].born, now)) {
      map_remove(i); /* a later entry may now sit at i: looked at next time round */
    }
    g_map_cursor = (i + 1) & (DEFER_MAP_SIZE - 1);
  }
}

/* ---- consumer ---- */

static int g_depth;
/* The logs whose head or snapshot a replay moved since the round last looked (bit i: log i):
 * replaying one entry may replay the starts it names in other logs first. */
static uint64_t g_moved;
_Static_assert(LOGS_ALL <= 64, "a bit per log");

static bool replay_one(uint32_t li, uint64_t known_ns);

/* Replays log li up to and including position pos, if published in this round's snapshot. */
static bool replay_until(uint32_t li, uint64_t pos) {
  defer_log* l = &g_logs[li];
  /* Relaxed: the consumer's own variable (under g_consumer_lock). */
  while (atomic_load_explicit(&l->head, memory_order_relaxed) <= pos) {
    if (atomic_load_explicit(&l->head, memory_order_relaxed) >= l->snapshot) return false;
    if (!replay_one(li, 0)) return false;
  }
  return true;
}

/* The core's handle for a handle a call named: *ready false while its start is not replayed yet. */
static void* resolve(uint64_t ref, bool* ready) {
  *ready = true;
  if (ref == 0) return NULL;
  const void* h = (const void*)(uintptr_t)ref;
  if (handle_tag(h) == HANDLE_TAG_API) return (void*)(uintptr_t)ref; /* a thread tag: as it is */
  int32_t li = log_of(ref);
  if (li < 0 || li >= LOGS_ALL || (ref & 3u) != 1u) return (void*)(uintptr_t)ref; /* not ours: the core judges it */
  uint64_t pos = pos_of(ref);
  defer_log* l = &g_logs[li];
  /* Relaxed: the consumer's own variable. */
  if (pos >= atomic_load_explicit(&l->head, memory_order_relaxed)) {
    /* Acquire: the start a call names was published before that call was made (NCCL had its handle
     * from it), so a fresh look at its log's tail finds it; a position beyond that tail was never
     * handed out (a forged or corrupt handle) and goes to the core as it is, to be judged there as
     * the synchronous mode would judge it. */
    uint64_t tail = atomic_load_explicit(&l->tail, memory_order_acquire);
    if (pos >= tail) return (void*)(uintptr_t)ref;
    if (tail > l->snapshot) {
      l->snapshot = tail;
      g_moved |= 1ull << li; /* the round looks at the log again */
    }
    if (g_depth >= 8 || !replay_until((uint32_t)li, pos)) {
      *ready = false;
      return NULL;
    }
  }
  map_entry* e = map_get(ref);
  if (e == NULL) {
    /* Replayed and gone: its operation had closed (the sweep found its handle stale) or it was
     * stopped before. The synchronous core counts such a call stale; so is it here. */
    counter_add(CTR_STALE_HANDLE, 1);
    return NULL;
  }
  return (void*)(uintptr_t)e->value;
}

/* Replays the entry at the head of log li; false (nothing done) while a handle it names is not
 * replayed yet. known_ns: the entry's time where the caller has worked it out (0: not). */
static bool replay_one(uint32_t li, uint64_t known_ns) {
  defer_log* l = &g_logs[li];
  /* Relaxed: the consumer's own variable. */
  uint64_t head = atomic_load_explicit(&l->head, memory_order_relaxed);
  defer_unit* u = &l->units[head & (DEFER_LOG_UNITS - 1)];
  if (u->op == DEFER_PAD || u->op == DEFER_OWNER) {
    if (u->op == DEFER_OWNER) {
      /* A new owner's entries follow: it has made no launch yet, as a new thread has not. */
      l->launch_ns = 0;
      l->launch_epoch = 0;
    }
    /* Release: the unit is read before its producer may overwrite it (it reloads the head with
     * acquire when its log looks full, which can be in the middle of a round). */
    atomic_store_explicit(&l->head, head + 1, memory_order_release);
    g_moved |= 1ull << li;
    return true;
  }
  g_depth++;
  bool ready = true;
  void* ref = NULL;
  const defer_op_body* body = (const defer_op_body*)&l->units[(head + 1) & (DEFER_LOG_UNITS - 1)];
  void* parent = NULL;
  switch (u->op) {
    case DEFER_OP_START:
      parent = resolve(body->parent, &ready);
      break;
    case DEFER_CHANNEL_START:
    case DEFER_PROXY_OP:
    case DEFER_PROXY_STEP:
    case DEFER_GPU_STOP:
    case DEFER_STEP_STATE:
    case DEFER_STOP:
      ref = resolve(u->ref, &ready);
      break;
    default:
      break;
  }
  g_depth--;
  if (!ready) return false;
  /* The call's own time, and its thread's last launch and tag, as the core reads them. The shared
   * log's writers are several threads: their launches are not told apart, so none is known (0, as
   * for an operation started away from its launching thread: the check is weaker, never wrong). */
  uint64_t now = known_ns != 0 ? known_ns : entry_ns(u);
  bool shared = li == SHARED_LOG;
  tls_defer_clock.now = now;
  tls_defer_clock.state = u->b5;
  tls_defer_clock.wall_offset = (int64_t)(u->op == DEFER_COLL_API ? body->seq : u->c);
  tls_defer_clock.active = 1;
  tls_last_launch_mono_ns = shared ? 0 : l->launch_ns;
  tls_last_launch_epoch = shared ? 0 : l->launch_epoch;
  void* result = NULL;
  switch (u->op) {
    case DEFER_OP_START: {
      tls_defer_clock.min_size_bytes = u->b; /* the minimum size of the call (core_min_size_at_call) */
      tls_tag.step = body->step;
      tls_tag.phase = u->phase;
      core_op_event ev = core_op_event_v4(u->b0, body->func, body->datatype, body->algo, body->proto, body->seq,
                                          body->count, u->i32, u->b1, u->b2);
      ev.channel_mode = u->b3;
      ev.copy_engine = u->b4;
      ev.parent = parent;
      ev.launch_id = u->a;
      ev.launch_id_given = 1;
      result = core_op_start((void*)(uintptr_t)u->ref, &ev);
      break;
    }
    case DEFER_COLL_API:
      tls_tag.step = body->step;
      tls_tag.phase = u->phase;
      result = core_coll_api_start((void*)(uintptr_t)u->ref, (const char*)(uintptr_t)u->a,
                                   (const char*)(uintptr_t)u->b, u->c, u->i32, u->b0 != 0);
      break;
    case DEFER_LAUNCH:
      core_launch_note((void*)(uintptr_t)u->ref);
      break;
    case DEFER_CHANNEL_START:
      result = core_channel_start(ref, u->b0, u->a);
      break;
    case DEFER_PROXY_OP:
      result = ref != NULL ? proxy_op_start(ref, u->b0, u->i32, (int32_t)u->a, u->b1) : NULL;
      break;
    case DEFER_PROXY_STEP:
      result = ref != NULL ? proxy_step_start(ref, u->i32) : NULL;
      break;
    case DEFER_GPU_STOP:
      core_channel_gpu_stop(ref, u->a);
      break;
    case DEFER_STEP_STATE:
      if (ref != NULL) proxy_step_state(ref, u->i32, u->a);
      break;
    case DEFER_FINALIZE:
      core_comm_finalize((void*)(uintptr_t)u->ref); /* takes the lifecycle lock: see defer_log.h */
      /* Relaxed: after the finalize; an init that sees the count fall flushes nothing it needs, as
       * the communicator is finalized already. */
      atomic_fetch_sub_explicit(&g_finalizes_pending, 1, memory_order_relaxed);
      break;
    case DEFER_STOP:
      core_stop(ref);
      /* A kernel channel's stop is the last call naming it: its entry goes now. A proxy
       * operation's or step's is not: NCCL 2.28 names its last steps again after their stops, and
       * after their operation's (states and second stops, the recording j28_moe), and the core
       * takes those calls as the synchronous mode gets them; so their entries stay until the sweep
       * finds them stale, with the operation's slot (an operation of very many steps holds as many
       * entries until it closes; past the map's 98,304 a start is counted deferred_map_full and
       * its later calls stale). An operation's handle stays until the sweep
       * finds it stale (its channels may come after its stop), and a collective call's until its
       * operation linked it (its stop comes first). */
      if (ref != NULL && handle_tag(ref) == HANDLE_TAG_CHANNEL && !proxy_handle_is(ref)) {
        map_entry* e = map_get(u->ref);
        if (e != NULL) map_remove((uint32_t)(e - g_map));
      }
      break;
    default:
      break;
  }
  if (!shared) {
    l->launch_ns = tls_last_launch_mono_ns;
    l->launch_epoch = tls_last_launch_epoch;
  }
  tls_defer_clock.active = 0;
  if (u->handle != 0 && u->op != DEFER_FINALIZE) map_put(u->handle, (uint64_t)(uintptr_t)result, now);
  /* Release: the entry's units are read before their producer may overwrite them (as for a pad). */
  atomic_store_explicit(&l->head, head + u->units, memory_order_release);
  g_moved |= 1ull << li;
  g_replayed++;
  return true;
}

/* Whether log i has an entry below its snapshot; if so its time in *t (0 for padding, which goes
 * first). */
static inline bool head_time(uint32_t i, uint64_t* t) {
  defer_log* l = &g_logs[i];
  uint64_t head = atomic_load_explicit(&l->head, memory_order_relaxed); /* own variable */
  if (head >= l->snapshot) return false;
  const defer_unit* u = &l->units[head & (DEFER_LOG_UNITS - 1)];
  *t = (u->op == DEFER_PAD || u->op == DEFER_OWNER) ? 0 : entry_ns(u);
  return true;
}

/* Whether a round should stop and leave the rest in the logs: three quarters of the record ring's
 * cells for operation records are taken, and no log is half full yet. Replays come in bursts (a
 * round replays what every thread logged since the last), and a burst that outruns the drain
 * would drop records that the logs can keep until the drain has made room. Past half a log the
 * round goes on, into the ring, whose drops are counted as in the synchronous mode: held back
 * further, the logs would fill and their own threads, NCCL's, would have to replay them
 * (deferred_helped), so a stalled drain never holds up the job. Relaxed reads (ring_used_cells,
 * defer_backlog): estimates; a round that overshoots only fills the ring as the synchronous mode
 * would. */
static bool should_pace(void) {
  const record_ring* r = &g_core.ring;
  uint64_t usable = r->capacity - r->control_reserve; /* what operation records may fill */
  return r->capacity != 0 && ring_used_cells(r) > usable - usable / 4 && defer_backlog() < DEFER_LOG_UNITS / 2;
}

/* Entries replayed between two looks at the ring's fill. */
#define PACE_EVERY 32u
/* Whether the last round stopped at a nearly full ring (under g_consumer_lock). */
static bool g_paced;

/* One round: every log's published entries stamped up to the watermark, in time order, stopping
 * early when `pace` and the record ring is nearly full. Caller holds g_consumer_lock. Returns the
 * entries replayed. */
static uint64_t replay_round(bool everything, bool pace) {
  uint64_t before = g_replayed;
  g_paced = pace && should_pace();
  if (g_paced) return 0; /* not even the tails are read: the producers' cache lines stay theirs */
  /* The round's own time: the real clock, or the replay's virtual one (one thread makes every
   * call then, so what is published is in order). */
  uint64_t now = clock_mono_raw_ns();
  uint64_t watermark = (everything || clock_is_virtual() || now < HOLD_NS) ? UINT64_MAX : now - HOLD_NS;
  /* The thread's own step tag and launch clock, which replaying borrows. */
  thread_tag own_tag = tls_tag;
  uint64_t own_launch = tls_last_launch_mono_ns;
  uint32_t own_epoch = tls_last_launch_epoch;
  /* The logs with entries in this round's snapshot, and the time of each one's next entry: the
   * merge looks at those only, and works out an entry's time once. */
  uint32_t active[LOGS_ALL];
  uint64_t next[LOGS_ALL];
  bool in[LOGS_ALL];
  uint32_t n = 0;
  for (uint32_t i = 0; i < LOGS_ALL; i++) {
    /* Acquire: the units below the tail were written before it was published. */
    g_logs[i].snapshot = atomic_load_explicit(&g_logs[i].tail, memory_order_acquire);
    in[i] = head_time(i, &next[i]);
    if (in[i]) active[n++] = i;
  }
  while (n > 0) {
    uint32_t li = active[0];
    for (uint32_t k = 1; k < n; k++) {
      uint32_t i = active[k];
      if (next[i] < next[li] || (next[i] == next[li] && i < li)) li = i; /* ties: the lower log */
    }
    if (next[li] > watermark) break;
    if (pace && (g_replayed - before) % PACE_EVERY == PACE_EVERY - 1 && should_pace()) {
      g_paced = true;
      break;
    }
    g_moved = 0;
    if (!replay_one(li, next[li])) break; /* a handle it names is not published yet */
    /* The logs it moved (its own, and those whose starts it replayed first): their next times. */
    for (uint64_t moved = g_moved; moved != 0; moved &= moved - 1) {
      uint32_t i = (uint32_t)__builtin_ctzll(moved);
      bool has = head_time(i, &next[i]);
      if (has && !in[i]) {
        active[n++] = i;
      } else if (!has && in[i]) {
        uint32_t k = 0;
        while (active[k] != i) k++;
        active[k] = active[--n]; /* read to its snapshot: out of this round */
      }
      in[i] = has;
    }
  }
  for (uint32_t i = 0; i < LOGS_ALL; i++) {
    defer_log* l = &g_logs[i];
    uint64_t head = atomic_load_explicit(&l->head, memory_order_relaxed); /* own variable */
    /* Acquire: the exiting owner's last units (released with the state) are in the snapshot of the
     * next round; a retired log read to its end is free for another thread. */
    int retired = LOG_RETIRED;
    if (atomic_load_explicit(&l->state, memory_order_acquire) == LOG_RETIRED &&
        head == atomic_load_explicit(&l->tail, memory_order_relaxed)) {
      /* A new owner starts with no launch of its own, as a new thread does. A thread that took the
       * log over meanwhile (claim_owned) has won the compare-and-swap below, and its marker resets
       * these again before its own entries. */
      l->launch_ns = 0;
      l->launch_epoch = 0;
      /* Release: this log's reads are done before a new owner claims it (acquire there). Relaxed
       * on failure: the log is already its new owner's. */
      (void)atomic_compare_exchange_strong_explicit(&l->state, &retired, LOG_FREE, memory_order_release,
                                                    memory_order_relaxed);
    }
  }
  tls_tag = own_tag;
  tls_last_launch_mono_ns = own_launch;
  tls_last_launch_epoch = own_epoch;
  uint64_t replayed = g_replayed - before;
  /* At least as many entries looked at as starts put in: the sweep keeps pace with the calls. */
  map_sweep(1024 + (uint32_t)(replayed < DEFER_MAP_SIZE ? replayed : DEFER_MAP_SIZE), now);
  return replayed;
}

/* A producer whose log is full replays a round of every log (its own included), whatever the
 * ring's fill: its log must make room. */
static void help_consumer(void) {
  pthread_mutex_lock(&g_consumer_lock);
  if (g_map != NULL) replay_round(false, false);
  pthread_mutex_unlock(&g_consumer_lock);
}

void defer_flush(void) {
  pthread_mutex_lock(&g_consumer_lock);
  if (g_map != NULL) {
    while (replay_round(true, false) != 0) {
    }
  }
  pthread_mutex_unlock(&g_consumer_lock);
}

void defer_hold(int on) {
  /* Relaxed: as read by the consumer. */
  atomic_store_explicit(&g_consumer_hold, on ? 1 : 0, memory_order_relaxed);
}

/* One paced round on the calling thread, as the consumer thread runs it: it too leaves the logs
 * alone while the ring is nearly full. It takes the logs' tails as they are now; what producers
 * log meanwhile waits for the next round, so a busy job cannot keep the caller here. */
static void paced_round(bool everything) {
  if (!defer_on()) return;
  pthread_mutex_lock(&g_consumer_lock);
  if (g_map != NULL) replay_round(everything, true);
  pthread_mutex_unlock(&g_consumer_lock);
}

/* What the sweep then measures ages against is defer_replayed_until. */
void defer_catch_up(void) { paced_round(false); }

void defer_replay_published(void) { paced_round(true); }

void* defer_core_handle(void* handle) {
  if (!defer_on() || handle == NULL || handle_tag(handle) == HANDLE_TAG_API) return handle;
  defer_flush();
  pthread_mutex_lock(&g_consumer_lock);
  map_entry* e = g_map != NULL ? map_get((uint64_t)(uintptr_t)handle) : NULL;
  void* core = e != NULL ? (void*)(uintptr_t)e->value : NULL;
  pthread_mutex_unlock(&g_consumer_lock);
  return core;
}

uint64_t defer_backlog(void) {
  uint64_t most = 0;
  for (uint32_t i = 0; i < LOGS_ALL; i++) {
    /* Relaxed: an estimate. */
    uint64_t tail = atomic_load_explicit(&g_logs[i].tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&g_logs[i].head, memory_order_relaxed);
    if (tail > head && tail - head > most) most = tail - head;
  }
  return most;
}

uint64_t defer_replayed_until(uint64_t now) {
  if (!defer_on()) return now;
  pthread_mutex_lock(&g_consumer_lock);
  uint64_t until = now;
  if (!clock_is_virtual() && now > HOLD_NS) until = now - HOLD_NS;
  for (uint32_t i = 0; i < LOGS_ALL && g_units != NULL; i++) {
    defer_log* l = &g_logs[i];
    /* Relaxed: the consumer's own head; acquire: the tail's units are written. */
    uint64_t head = atomic_load_explicit(&l->head, memory_order_relaxed);
    if (head < atomic_load_explicit(&l->tail, memory_order_acquire)) {
      const defer_unit* u = &l->units[head & (DEFER_LOG_UNITS - 1)];
      uint64_t t = (u->op == DEFER_PAD || u->op == DEFER_OWNER) ? 0 : entry_ns(u); /* no time of their own */
      if (t > 0 && t - 1 < until) until = t - 1;
    }
  }
  pthread_mutex_unlock(&g_consumer_lock);
  return until;
}


/* Empty rounds after which the consumer naps 10 ms: ten of 50 us, then a hundred of 1 ms. */
#define CONSUMER_DEEP_IDLE 110u

static void* consumer_main(void* arg) {
  (void)arg;
  /* Named for top -H and for the benchmarks that read its CPU time from /proc (15 characters at
   * most); a failure only leaves the name inherited. */
  pthread_setname_np(pthread_self(), "nccl-insp-defer");
  uint32_t idle = 0;
  /* Relaxed: a stop request; the join orders everything after it. */
  while (atomic_load_explicit(&g_consumer_run, memory_order_relaxed)) {
    /* Relaxed: a test's switch; nothing is published with it. */
    if (atomic_load_explicit(&g_consumer_hold, memory_order_relaxed)) {
      struct timespec ts = {0, 50000};
      nanosleep(&ts, NULL);
      continue;
    }
    pthread_mutex_lock(&g_consumer_lock);
    uint64_t n = replay_round(false, true);
    bool paced = g_paced;
    pthread_mutex_unlock(&g_consumer_lock);
    /* Rounds 50 us apart while there is work, 1 ms apart once ten found none, 10 ms apart once
     * about 100 ms found none; straight on while a log is a quarter full (a log holds 65,536
     * units, about 1 ms of a thread making calls back to back), unless the round stopped at a
     * nearly full ring: then 50 us for the drain. Reading a log's tail takes its cache line from
     * the producer, whose next publish then misses: a round per 50 us costs it one miss per
     * round, not one per call. The 10 ms naps are for an idle job: each wake-up costs about
     * 15 us of CPU on the development VM, 1.5 % of a core at 1,000 a second (bench/idle-cost);
     * the first calls after a pause wait up to 10 ms for their replay, and no thread of NCCL's
     * fills a log in 10 ms after a pause. */
    if (n != 0 && !paced && defer_backlog() > DEFER_LOG_UNITS / 4) continue;
    idle = (n != 0 || paced) ? 0 : (idle < CONSUMER_DEEP_IDLE ? idle + 1 : idle);
    struct timespec ts = {0, idle < 10 ? 50000 : idle < CONSUMER_DEEP_IDLE ? 1000000 : 10000000};
    nanosleep(&ts, NULL);
  }
  return NULL;
}

int defer_start(void) {
  if (g_units == NULL) {
    size_t bytes = sizeof(defer_unit) * DEFER_LOG_UNITS * LOGS_ALL;
    void* m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return -1;
    void* map = mmap(NULL, sizeof(map_entry) * DEFER_MAP_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    if (map == MAP_FAILED) {
      munmap(m, bytes);
      return -1;
    }
    g_units = m;
    for (uint32_t i = 0; i < LOGS_ALL; i++) {
      g_logs[i].units = g_units + (size_t)i * DEFER_LOG_UNITS;
      g_logs[i].wunits = g_logs[i].units;
    }
    pthread_mutex_lock(&g_consumer_lock);
    g_map = map;
    pthread_mutex_unlock(&g_consumer_lock);
  }
  pthread_mutex_lock(&g_consumer_lock);
  /* Entries logged by calls that raced the last close: their session is over. */
  uint64_t discarded = 0;
  for (uint32_t i = 0; i < LOGS_ALL; i++) {
    defer_log* l = &g_logs[i];
    /* Acquire: as in a round. */
    uint64_t tail = atomic_load_explicit(&l->tail, memory_order_acquire);
    uint64_t head = atomic_load_explicit(&l->head, memory_order_relaxed);
    discarded += tail - head;
    /* Release: as in a round. */
    atomic_store_explicit(&l->head, tail, memory_order_release);
  }
  if (discarded != 0) counter_add(CTR_DEFER_DISCARDED, discarded);
  /* Relaxed: the discarded finalizes' count goes with them; no caller runs yet. */
  atomic_store_explicit(&g_finalizes_pending, 0, memory_order_relaxed);
  memset(g_map, 0, sizeof(map_entry) * DEFER_MAP_SIZE);
  g_map_count = 0;
  g_map_cursor = 0;
  pthread_mutex_unlock(&g_consumer_lock);
  atomic_store_explicit(&g_consumer_run, 1, memory_order_relaxed);
  if (pthread_create(&g_consumer, NULL, consumer_main, NULL) != 0) return -1;
  g_consumer_started = 1;
  /* Relaxed: callbacks read the mode as an independent flag; the logs and map above are the
   * consumer's, handed over by pthread_create. */
  atomic_store_explicit(&g_core.deferred_active, 1, memory_order_relaxed);
  return 0;
}

void defer_stop_consumer(void) {
  if (!g_consumer_started) return;
  atomic_store_explicit(&g_consumer_run, 0, memory_order_relaxed);
  pthread_join(g_consumer, NULL);
  g_consumer_started = 0;
  defer_flush();
  /* Later calls go to the core; those that raced the switch and logged are replayed now. */
  atomic_store_explicit(&g_core.deferred_active, 0, memory_order_relaxed);
  defer_flush();
}
