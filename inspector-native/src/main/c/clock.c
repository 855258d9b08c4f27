#include "clock.h"

#include <stdatomic.h>
#include <time.h>

#include "defer_log.h"
#include "inspector_limits.h"
#include "launch_clock.h"
#include "tsc_clock.h"

/* All three variables are read with relaxed loads: each is a self-contained value, and the virtual
 * clock is only driven by a replay that makes its callbacks from the thread that sets the clock
 * (a paced replay: each thread its own reading, mode 2), so no ordering with other memory is
 * needed. */
_Atomic int g_clock_virtual;
static _Atomic uint64_t virtual_mono_ns;
/* A paced replay's per-thread readings (clock_set_virtual with enabled == 2): each replaying thread
 * reads its own call's recorded time; other threads read the latest time any thread set. */
static _Thread_local uint64_t tls_virtual_mono_ns;
_Atomic int64_t g_wall_minus_mono_ns;

static uint64_t read_clock(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t clock_mono_ns(void) {
  /* The deferred mode's consumer replays a call at the time it was made (defer_log.h). */
  if (defer_replaying()) return tls_defer_clock.now;
  return clock_mono_raw_ns();
}

uint64_t clock_mono_raw_ns(void) {
  int virt = atomic_load_explicit(&g_clock_virtual, memory_order_relaxed);
  if (INSPECTOR_UNLIKELY(virt)) {
    if (virt == 2 && tls_virtual_mono_ns != 0) return tls_virtual_mono_ns;
    return atomic_load_explicit(&virtual_mono_ns, memory_order_relaxed);
  }
  return tsc_clock_read_ns(); /* clock_gettime where the counter is not in use */
}

uint64_t clock_mono_to_wall_ns(uint64_t mono_ns) {
  if (mono_ns == 0) return 0;
  /* A replayed call converts with the offset of its own time (defer_log.h). */
  if (defer_replaying()) {
    return (uint64_t)((int64_t)mono_ns + tls_defer_clock.wall_offset);
  }
  return (uint64_t)((int64_t)mono_ns + atomic_load_explicit(&g_wall_minus_mono_ns, memory_order_relaxed));
}

void clock_refresh_wall_offset(void) {
  if (atomic_load_explicit(&g_clock_virtual, memory_order_relaxed)) return;
  tsc_clock_refresh();
  /* The hot path's own clock, so that its readings convert to wall time without its gap. */
  uint64_t mono = clock_mono_ns();
  uint64_t wall = read_clock(CLOCK_REALTIME);
  atomic_store_explicit(&g_wall_minus_mono_ns, (int64_t)(wall - mono), memory_order_relaxed);
}

void clock_set_virtual(int enabled, uint64_t mono_ns, uint64_t wall_ns) {
  /* Switching between the real and a virtual clock changes the time base of launch times. */
  if ((atomic_load_explicit(&g_clock_virtual, memory_order_relaxed) != 0) != (enabled != 0)) {
    launch_clock_new_epoch();
  }
  if (!enabled) {
    atomic_store_explicit(&g_clock_virtual, 0, memory_order_relaxed);
    clock_refresh_wall_offset();
    return;
  }
  if (enabled == 2) {
    /* Per thread: this thread's reading, and the latest of all for the others (relaxed: each a
     * self-contained value; the replaying threads order their calls themselves). */
    tls_virtual_mono_ns = mono_ns;
    uint64_t seen = atomic_load_explicit(&virtual_mono_ns, memory_order_relaxed);
    while (seen < mono_ns && !atomic_compare_exchange_weak_explicit(&virtual_mono_ns, &seen, mono_ns,
                                                                    memory_order_relaxed, memory_order_relaxed)) {
    }
  } else {
    atomic_store_explicit(&virtual_mono_ns, mono_ns, memory_order_relaxed);
  }
  atomic_store_explicit(&g_wall_minus_mono_ns, (int64_t)(wall_ns - mono_ns), memory_order_relaxed);
  atomic_store_explicit(&g_clock_virtual, enabled == 2 ? 2 : 1, memory_order_relaxed);
}
