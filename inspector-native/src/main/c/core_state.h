/* The process-wide state of the native core: lifecycle, runtime settings and the tables.
 *
 * There is one core per process because NCCL loads one profiler plugin per process. Java enables
 * it (allocating the tables), closes it (flushing what is in flight) and releases it (freeing the
 * memory once no communicator can call in any more). Those transitions and communicator
 * init/finalize take `lifecycle_lock`; event callbacks never do. */
#ifndef NCCL_INSPECTOR_CORE_STATE_H
#define NCCL_INSPECTOR_CORE_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "api_ledger.h"
#include "comm_table.h"
#include "defer_clock.h"
#include "op_table.h"
#include "record_ring.h"

enum { CORE_OFF = 0, CORE_ENABLED = 1, CORE_PAUSED = 2, CORE_CLOSED = 3 };

/* Result codes of core_enable. */
enum {
  ENABLE_OK = 0,
  ENABLE_OK_SIZES_KEPT = 1, /* tables of an earlier session are still in use by live communicators */
  ENABLE_ALREADY = -1,
  ENABLE_BAD_CONFIG = -2,
  ENABLE_NO_MEMORY = -3
};

typedef struct core_sizes {
  uint32_t op_slots;
  uint32_t comm_slots;
  uint32_t ring_cells;
} core_sizes;

typedef struct core_settings {
  uint64_t min_size_bytes;
  uint64_t inflight_expiry_ns;
  int enable_p2p;
  int verbose;
  int require_kernel_timing;
} core_settings;

typedef struct core {
  _Atomic int state;
  /* Whether callbacks log for the deferred mode's consumer (defer_log.h): beside the state, which the
   * callbacks read too, so that the synchronous mode's checks of it cost no other cache line. Set
   * once the consumer runs, cleared by close after the last replay. */
  _Atomic int deferred_active;
  /* Runtime settings, read with relaxed loads by callbacks: each is an independent value and a
   * change applies to operations that start afterwards. */
  _Atomic uint64_t min_size_bytes;
  _Atomic uint64_t inflight_expiry_ns;
  _Atomic int enable_p2p;
  _Atomic int verbose;
  _Atomic int require_kernel_timing;
  _Atomic int channel_recovery_off; /* do not recover lagging channels' times (channel_recovery.h); 0: on; read at comm init */
  _Atomic int network_breakdown_off; /* do not ask for proxy events (proxy_breakdown.h); 0: on */
  _Atomic int tsc_clock_off; /* CPU times from clock_gettime, not the TSC (tsc_clock.h); 0: TSC where usable; read at enable */
  _Atomic int deferred; /* callbacks log, a consumer thread does the work (defer_log.h); read after enable */
  /* Tables: valid while `allocated`; never freed while a communicator is live. */
  int allocated;
  int free_pending;
  core_sizes sizes;
  op_table ops;
  comm_table comms;
  api_ledger ledger;
  record_ring ring;
  pthread_mutex_t lifecycle_lock;
} core;

extern core g_core;

int core_enable(const core_sizes* sizes, const core_settings* settings);
/* Stops accepting events and flushes every operation in flight into the ring. */
void core_close(void);
/* Frees the tables now if no communicator is live, else when the last one is finalized. */
void core_release(void);
void core_set_paused(int paused);

/* Whether callbacks log (1) or call the core (0). Relaxed: a callback racing the switch is one of
 * the events that race a close in either mode (an entry it logs is discarded at the next enable,
 * counted). */
static inline int defer_on(void) {
  return atomic_load_explicit(&g_core.deferred_active, memory_order_relaxed);
}

/* Whether this thread is replaying a logged call (the deferred mode's consumer, defer_log.h): the
 * clocks, the core's state and the minimum size then answer as they did when the call was made,
 * from tls_defer_clock. The mode's flag first spares every other thread the thread-local read. */
static inline int defer_replaying(void) {
  return INSPECTOR_UNLIKELY(defer_on()) && tls_defer_clock.active;
}

/* The state (CORE_*) alone, as a call finds it when it is made (the deferred mode's producers log
 * it). Acquire pairs with the release in core_enable, so the tables are visible before anybody
 * uses them. */
static inline int core_state_now(void) {
  return atomic_load_explicit(&g_core.state, memory_order_acquire);
}

static inline int core_accepting_now(void) {
  return core_state_now() == CORE_ENABLED;
}

/* The state when the call was made: now, or for a replayed call the state its producer logged
 * (defer_log.h), so that a call made while paused counts as paused however late it is replayed. */
static inline int core_state_at_call(void) {
  if (defer_replaying()) return tls_defer_clock.state;
  return core_state_now();
}

/* The minimum message size an operation start is held to: now, or for a replayed start the one
 * in force when the call was made, so that a start the call tracked (and handed NCCL a handle for)
 * is tracked however the setting moved before its replay. Relaxed: an independent setting. */
static inline uint64_t core_min_size_at_call(void) {
  if (defer_replaying()) return tls_defer_clock.min_size_bytes;
  return atomic_load_explicit(&g_core.min_size_bytes, memory_order_relaxed);
}

/* Callbacks: 1 if operations may start now; a replayed call is taken as the core would have taken
 * it when it was made (defer_log.h). */
static inline int core_accepting(void) {
  return core_state_at_call() == CORE_ENABLED;
}

/* Callbacks holding a handle: 1 while the tables exist (they are freed only in state OFF). */
static inline int core_has_tables(void) {
  return atomic_load_explicit(&g_core.state, memory_order_acquire) != CORE_OFF;
}

/* Called under lifecycle_lock by finalize when the last live communicator is gone. */
void core_free_if_pending_locked(void);

#endif
