#include "inspector_native.h"
#include "kernel_records.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "core_state.h"
#include "defer_log.h"
#include "event_counters.h"
#include "names.h"
#include "nccl_profiler_abi.h"
#include "op_reclaim.h"
#include "record_format.h"
#include "trace_recorder.h"
#include "inflight_query.h"
#include "thread_tags.h"
#include "tsc_clock.h"

extern ncclProfiler_v6_t ncclProfiler_v6;
extern ncclProfiler_v5_t ncclProfiler_v5;
extern ncclProfiler_v4_t ncclProfiler_v4;
extern ncclProfiler_v3_t ncclProfiler_v3;
extern ncclProfiler_v2_t ncclProfiler_v2;
extern ncclProfiler_v1_t ncclProfiler_v1;

/* Every interface version's table, which NCCL looks up by name. The shared object is linked from the
 * core's static archive, whose members are only pulled in when something references them: this
 * list is that reference for abi_v1.o ... abi_v6.o (without it only the versions this file happens
 * to use would be exported). Kept by `used` although nothing reads it. */
__attribute__((used)) static const void* const exported_tables[] = {
    &ncclProfiler_v6, &ncclProfiler_v5, &ncclProfiler_v4, &ncclProfiler_v3, &ncclProfiler_v2, &ncclProfiler_v1};

int nccl_inspector_enable(int op_slots, int comm_slots, int ring_cells, long long min_size_bytes,
                          int enable_p2p, int verbose, int require_kernel_timing,
                          long long inflight_expiry_ns) {
  if (op_slots <= 0 || comm_slots <= 0 || ring_cells <= 0 || min_size_bytes < 0 ||
      inflight_expiry_ns < 0) {
    return ENABLE_BAD_CONFIG;
  }
  core_sizes sizes = {(uint32_t)op_slots, (uint32_t)comm_slots, (uint32_t)ring_cells};
  core_settings settings = {(uint64_t)min_size_bytes, (uint64_t)inflight_expiry_ns, enable_p2p != 0,
                            verbose != 0, require_kernel_timing != 0};
  int rc = core_enable(&sizes, &settings);
  /* The deferred mode starts once the core takes events, outside the lifecycle lock (a replayed
   * finalize takes it under the consumer's lock). Calls made in between went to the core: their
   * handles pass through the replay as they are. It is chosen only while no communicator is live
   * (log handles of a stopped consumer may still be in NCCL's hands), and without its memory or
   * thread it stays off. Relaxed: a setting stored before enable (nccl_inspector_set_deferred). */
  if (rc >= 0 && atomic_load_explicit(&g_core.deferred, memory_order_relaxed) != 0 &&
      atomic_load_explicit(&g_core.comms.live, memory_order_relaxed) == 0) {
    defer_start();
  }
  return rc;
}

void nccl_inspector_close(void) { core_close(); }
void nccl_inspector_release(void) { core_release(); }

int nccl_inspector_state(void) { return atomic_load_explicit(&g_core.state, memory_order_acquire); }

void nccl_inspector_set_paused(int paused) { core_set_paused(paused); }

void nccl_inspector_set_network_breakdown(int on) {
  /* Relaxed: read at each communicator's init, which asks NCCL for proxy events or not. */
  atomic_store_explicit(&g_core.network_breakdown_off, on ? 0 : 1, memory_order_relaxed);
}

void nccl_inspector_set_channel_recovery(int on) {
  /* Relaxed: an independent setting read at each communicator's init. */
  atomic_store_explicit(&g_core.channel_recovery_off, on ? 0 : 1, memory_order_relaxed);
}

void nccl_inspector_set_deferred(int on) {
  /* Relaxed: read by the next enable, on the thread that calls both (Java's lifecycle). */
  atomic_store_explicit(&g_core.deferred, on ? 1 : 0, memory_order_relaxed);
}

int nccl_inspector_deferred_active(void) { return defer_on(); }

void nccl_inspector_defer_flush(void) { defer_flush(); }

void nccl_inspector_defer_replay_published(void) { defer_replay_published(); }

void nccl_inspector_defer_hold(int on) { defer_hold(on); }

void nccl_inspector_set_tsc_clock(int on) {
  /* Relaxed: an independent setting read at the next enable, under the lifecycle lock. */
  atomic_store_explicit(&g_core.tsc_clock_off, on ? 0 : 1, memory_order_relaxed);
}

int nccl_inspector_tsc_clock_active(void) { return tsc_clock_active() ? 1 : 0; }

void nccl_inspector_set_min_size(long long min_size_bytes) {
  if (min_size_bytes < 0) return;
  /* Relaxed: applies to operations that start after callbacks observe it. */
  atomic_store_explicit(&g_core.min_size_bytes, (uint64_t)min_size_bytes, memory_order_relaxed);
}

int nccl_inspector_kernel_records_start(const char* library, int shared) {
  /* Only for a running core: the joined kernels go into its ring. */
  if (!core_accepting()) return KERNEL_RECORDS_OFF;
  return shared ? kernel_records_start_in(library, NULL) : kernel_records_start(library);
}
void nccl_inspector_kernel_records_flush(void) { kernel_records_flush(); }
void nccl_inspector_kernel_records_stop(void) { kernel_records_stop(); }
int nccl_inspector_kernel_records_state(void) { return kernel_records_state(); }
const char* nccl_inspector_kernel_records_reason(void) { return kernel_records_reason(); }

long long nccl_inspector_drain(void* buffer, long long capacity) {
  if (buffer == NULL || capacity <= 0) return 0;
  pthread_mutex_lock(&g_core.lifecycle_lock);
  long long n = g_core.allocated ? (long long)ring_drain(&g_core.ring, buffer, (size_t)capacity) : 0;
  pthread_mutex_unlock(&g_core.lifecycle_lock);
  return n;
}

int nccl_inspector_trace_start(int ring_cells) {
  if (ring_cells < 1024 || (ring_cells & (ring_cells - 1)) != 0) return -1;
  pthread_mutex_lock(&g_core.lifecycle_lock);
  int rc = g_core.allocated ? trace_start((uint32_t)ring_cells) : -1;
  pthread_mutex_unlock(&g_core.lifecycle_lock);
  return rc;
}

void nccl_inspector_trace_stop(void) { trace_stop_recording(); }

long long nccl_inspector_drain_trace(void* buffer, long long capacity) {
  if (buffer == NULL || capacity <= 0) return 0;
  pthread_mutex_lock(&g_core.lifecycle_lock);
  long long n = (long long)trace_drain(buffer, (size_t)capacity);
  pthread_mutex_unlock(&g_core.lifecycle_lock);
  return n;
}

int nccl_inspector_inflight(long long min_age_ns, void* buffer, int max_entries) {
  if (buffer == NULL || max_entries <= 0 || min_age_ns < 0) return 0;
  defer_catch_up();
  pthread_mutex_lock(&g_core.lifecycle_lock);
  int n = g_core.allocated ? inflight_query(clock_mono_ns(), (uint64_t)min_age_ns, buffer, max_entries) : 0;
  pthread_mutex_unlock(&g_core.lifecycle_lock);
  return n;
}

void nccl_inspector_set_thread_tag(long long step, int phase) {
  tags_set_current_thread(step, (uint16_t)(phase < 0 ? 0 : phase > 0xffff ? 0xffff : phase));
}

int nccl_inspector_sweep(void) {
  clock_refresh_wall_offset();
  defer_catch_up();
  /* Before the lifecycle lock: a replayed finalize holds the consumer's lock and takes that one. */
  uint64_t until = defer_replayed_until(clock_mono_ns());
  pthread_mutex_lock(&g_core.lifecycle_lock);
  int n = 0;
  if (g_core.allocated) {
    uint64_t now = until;
    n = (int)reclaim_sweep(now);
    /* A collective call unlinked for as long as an operation may stay in flight gets no event. */
    uint64_t expiry = atomic_load_explicit(&g_core.inflight_expiry_ns, memory_order_relaxed);
    if (expiry != 0) api_ledger_sweep(&g_core.ledger, now, expiry);
  }
  pthread_mutex_unlock(&g_core.lifecycle_lock);
  return n;
}

long long nccl_inspector_ring_used_cells(void) {
  pthread_mutex_lock(&g_core.lifecycle_lock);
  long long n = g_core.allocated ? (long long)ring_used_cells(&g_core.ring) : 0;
  pthread_mutex_unlock(&g_core.lifecycle_lock);
  return n;
}

int nccl_inspector_live_comms(void) {
  pthread_mutex_lock(&g_core.lifecycle_lock);
  int n = g_core.allocated ? (int)atomic_load_explicit(&g_core.comms.live, memory_order_relaxed) : 0;
  pthread_mutex_unlock(&g_core.lifecycle_lock);
  return n;
}

int nccl_inspector_counter_count(void) { return CTR_COUNT; }
const char* nccl_inspector_counter_name(int id) { return counter_name(id); }
int nccl_inspector_counter_kind(int id) { return counter_kind(id); }
long long nccl_inspector_counter(int id) { return (long long)counter_read(id); }

int nccl_inspector_name_count(int table) { return names_count(table); }
const char* nccl_inspector_name(int table, int id) { return names_lookup(table, id); }
int nccl_inspector_layout_count(void) { return record_layout_count(); }
const char* nccl_inspector_layout_name(int i) { return record_layout_name(i); }
int nccl_inspector_layout_offset(int i) { return record_layout_offset(i); }
int nccl_inspector_layout_size(int i) { return record_layout_size(i); }

const char* nccl_inspector_library_path(void) {
  static char path[PATH_MAX];
  Dl_info info;
  if (dladdr((void*)&ncclProfiler_v5, &info) == 0 || info.dli_fname == NULL) return NULL;
  if (realpath(info.dli_fname, path) == NULL) return NULL;
  return path;
}

static int find_nccl(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  (void)data;
  const char* name = info->dlpi_name;
  if (name == NULL) return 0;
  const char* base = strrchr(name, '/');
  base = base ? base + 1 : name;
  return strncmp(base, "libnccl.so", 10) == 0;
}

int nccl_inspector_nccl_loaded(void) { return dl_iterate_phdr(find_nccl, NULL) != 0; }

const char* nccl_inspector_getenv(const char* name) { return name ? getenv(name) : NULL; }

int nccl_inspector_setenv(const char* name, const char* value) {
  if (name == NULL || value == NULL) return -1;
  return setenv(name, value, 1);
}

INSPECTOR_EXPORT void nccl_inspector_set_virtual_clock(int enabled, unsigned long long mono_ns,
                                                      unsigned long long wall_ns) {
  clock_set_virtual(enabled, mono_ns, wall_ns);
}
