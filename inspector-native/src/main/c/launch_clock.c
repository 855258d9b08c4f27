#include "launch_clock.h"

#include "clock.h"

_Thread_local uint64_t tls_last_launch_mono_ns;
_Thread_local uint32_t tls_last_launch_epoch;
/* Starts at 1 so that a thread that never noted a launch (epoch 0) reads as unknown. */
_Atomic uint32_t g_launch_epoch = 1;

void launch_clock_note(void) {
  tls_last_launch_mono_ns = clock_mono_ns();
  /* Relaxed: see launch_clock_last. */
  tls_last_launch_epoch = atomic_load_explicit(&g_launch_epoch, memory_order_relaxed);
}

void launch_clock_new_epoch(void) {
  atomic_fetch_add_explicit(&g_launch_epoch, 1, memory_order_relaxed);
}
