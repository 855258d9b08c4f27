/* Timestamps of the core: CLOCK_MONOTONIC nanoseconds on the hot path (a vDSO read, no system
 * call), converted to wall-clock nanoseconds only when a record is built. A replay can install a
 * virtual clock so that CPU-timed values reproduce those of the recorded run. */
#ifndef NCCL_INSPECTOR_CLOCK_H
#define NCCL_INSPECTOR_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>

uint64_t clock_mono_ns(void);
/* The same clock without the deferred mode's replay override (defer_log.h): what a call's own
 * time is when it is logged. */
uint64_t clock_mono_raw_ns(void);
/* Wall-clock minus monotonic nanoseconds, as clock_mono_to_wall_ns adds them now (relaxed: a
 * self-contained value). */
extern _Atomic int64_t g_wall_minus_mono_ns;
static inline int64_t clock_wall_offset(void) {
  return atomic_load_explicit(&g_wall_minus_mono_ns, memory_order_relaxed);
}
/* Whether a virtual clock is installed (relaxed: see clock.c). */
extern _Atomic int g_clock_virtual;
static inline int clock_is_virtual(void) { return atomic_load_explicit(&g_clock_virtual, memory_order_relaxed); }
uint64_t clock_mono_to_wall_ns(uint64_t mono_ns);
/* Re-reads the offset between the wall clock and the monotonic clock (no-op under a virtual clock). */
void clock_refresh_wall_offset(void);
/* Installs (or, with enabled == 0, removes) the virtual clock and sets its current reading. With
 * enabled == 2 the reading is the calling thread's own (a paced replay on several threads: each
 * thread's calls at their recorded times); threads that set none read the latest set. */
void clock_set_virtual(int enabled, uint64_t mono_ns, uint64_t wall_ns);

#endif
