#include "core_state.h"

#include <string.h>

#include "clock.h"
#include "defer_log.h"
#include "event_counters.h"
#include "gpu_clock_bound.h"
#include "kernel_records.h"
#include "launch_clock.h"
#include "names.h"
#include "nccl_release.h"
#include "op_reclaim.h"
#include "record_emit.h"
#include "trace_recorder.h"
#include "tsc_clock.h"

core g_core = {.lifecycle_lock = PTHREAD_MUTEX_INITIALIZER};

/* Cells held back in the ring for communicator records. */
#define CONTROL_RESERVE_CELLS 256

static void free_tables_locked(void) {
  if (!g_core.allocated) return;
  op_table_destroy(&g_core.ops);
  comm_table_destroy(&g_core.comms);
  api_ledger_destroy(&g_core.ledger);
  ring_destroy(&g_core.ring);
  trace_free();
  g_core.allocated = 0;
  g_core.free_pending = 0;
}

static int allocate_tables_locked(const core_sizes* sizes) {
  if (op_table_init(&g_core.ops, sizes->op_slots) != 0) return -1;
  if (comm_table_init(&g_core.comms, sizes->comm_slots) != 0) {
    op_table_destroy(&g_core.ops);
    return -1;
  }
  /* The ledger holds calls between their CollApi and Coll events: as many as operations in flight. */
  if (api_ledger_init(&g_core.ledger, sizes->op_slots) != 0) {
    op_table_destroy(&g_core.ops);
    comm_table_destroy(&g_core.comms);
    return -1;
  }
  if (ring_init(&g_core.ring, sizes->ring_cells, CONTROL_RESERVE_CELLS) != 0) {
    op_table_destroy(&g_core.ops);
    comm_table_destroy(&g_core.comms);
    api_ledger_destroy(&g_core.ledger);
    return -1;
  }
  g_core.sizes = *sizes;
  g_core.allocated = 1;
  return 0;
}

static int sizes_valid(const core_sizes* s) {
  return s->op_slots > 0 && s->op_slots <= INSPECTOR_MAX_OP_SLOTS && s->comm_slots > 0 &&
         s->comm_slots <= INSPECTOR_MAX_COMM_SLOTS && s->ring_cells >= 1024 &&
         s->ring_cells <= INSPECTOR_MAX_RING_CELLS && (s->ring_cells & (s->ring_cells - 1)) == 0;
}

static void apply_settings(const core_settings* settings) {
  /* Relaxed: published to callbacks by the release store of the state in core_enable. */
  atomic_store_explicit(&g_core.min_size_bytes, settings->min_size_bytes, memory_order_relaxed);
  atomic_store_explicit(&g_core.inflight_expiry_ns, settings->inflight_expiry_ns, memory_order_relaxed);
  atomic_store_explicit(&g_core.enable_p2p, settings->enable_p2p, memory_order_relaxed);
  atomic_store_explicit(&g_core.verbose, settings->verbose, memory_order_relaxed);
  atomic_store_explicit(&g_core.require_kernel_timing, settings->require_kernel_timing,
                        memory_order_relaxed);
}

int core_enable(const core_sizes* sizes, const core_settings* settings) {
  if (!sizes_valid(sizes)) return ENABLE_BAD_CONFIG;
  pthread_mutex_lock(&g_core.lifecycle_lock);
  int state = atomic_load_explicit(&g_core.state, memory_order_relaxed);
  if (state == CORE_ENABLED || state == CORE_PAUSED) {
    pthread_mutex_unlock(&g_core.lifecycle_lock);
    return ENABLE_ALREADY;
  }
  int result = ENABLE_OK;
  if (g_core.allocated) {
    int live = (int)atomic_load_explicit(&g_core.comms.live, memory_order_relaxed);
    int same = memcmp(&g_core.sizes, sizes, sizeof(*sizes)) == 0;
    if (!same && live == 0) {
      free_tables_locked();
    } else if (!same) {
      result = ENABLE_OK_SIZES_KEPT;
    }
  }
  if (!g_core.allocated && allocate_tables_locked(sizes) != 0) {
    pthread_mutex_unlock(&g_core.lifecycle_lock);
    return ENABLE_NO_MEMORY;
  }
  g_core.free_pending = 0;
  counters_reset();
  gpu_clock_reset(); /* a session learns the GPU clocks afresh */
  launch_clock_new_epoch();
  names_reset_cache();
  /* Relaxed: a setting stored before enable was called (nccl_inspector_set_tsc_clock). */
  tsc_clock_start(atomic_load_explicit(&g_core.tsc_clock_off, memory_order_relaxed) == 0);
  nccl_release_forget();
  clock_refresh_wall_offset();
  apply_settings(settings);
  /* Communicators that outlived an earlier session are announced again to the new one. */
  reclaim_announce_live_comms();
  /* Release: everything above is visible to callbacks that see ENABLED (core_accepting). */
  atomic_store_explicit(&g_core.state, CORE_ENABLED, memory_order_release);
  pthread_mutex_unlock(&g_core.lifecycle_lock);
  return result;
}

void core_close(void) {
  /* Every call logged so far is replayed while the core still takes events; later ones go to it
   * directly, and find it closed. */
  defer_stop_consumer();
  /* CUPTI's last buffers go into the ring before it is drained for the last time. */
  kernel_records_stop();
  pthread_mutex_lock(&g_core.lifecycle_lock);
  int state = atomic_load_explicit(&g_core.state, memory_order_relaxed);
  if (state == CORE_ENABLED || state == CORE_PAUSED) {
    /* Relaxed is enough: callbacks that still see ENABLED are handled like any racing event
     * (their operations are flushed below or become stale). */
    atomic_store_explicit(&g_core.state, CORE_CLOSED, memory_order_relaxed);
    if (g_core.allocated) {
      reclaim_flush_all(RECLAIM_AT_CLOSE, 0);
      api_ledger_flush(&g_core.ledger, NULL);
    }
  }
  pthread_mutex_unlock(&g_core.lifecycle_lock);
}

void core_release(void) {
  pthread_mutex_lock(&g_core.lifecycle_lock);
  int state = atomic_load_explicit(&g_core.state, memory_order_relaxed);
  if (state == CORE_CLOSED && g_core.allocated) {
    if (atomic_load_explicit(&g_core.comms.live, memory_order_relaxed) == 0) {
      free_tables_locked();
      atomic_store_explicit(&g_core.state, CORE_OFF, memory_order_relaxed);
    } else {
      g_core.free_pending = 1;
    }
  }
  pthread_mutex_unlock(&g_core.lifecycle_lock);
}

void core_free_if_pending_locked(void) {
  if (g_core.free_pending && atomic_load_explicit(&g_core.comms.live, memory_order_relaxed) == 0 &&
      atomic_load_explicit(&g_core.state, memory_order_relaxed) == CORE_CLOSED) {
    free_tables_locked();
    atomic_store_explicit(&g_core.state, CORE_OFF, memory_order_relaxed);
  }
}

void core_set_paused(int paused) {
  pthread_mutex_lock(&g_core.lifecycle_lock);
  int state = atomic_load_explicit(&g_core.state, memory_order_relaxed);
  if (paused && state == CORE_ENABLED) {
    atomic_store_explicit(&g_core.state, CORE_PAUSED, memory_order_relaxed);
  } else if (!paused && state == CORE_PAUSED) {
    atomic_store_explicit(&g_core.state, CORE_ENABLED, memory_order_release);
  }
  pthread_mutex_unlock(&g_core.lifecycle_lock);
}
