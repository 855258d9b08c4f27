#include "gpu_clock_check.h"

#include <stdatomic.h>

/* Set once and never cleared while a session runs. Relaxed: it is a self-contained fact; a thread
 * that reads it late only skips the check for an operation or two. */
static _Atomic int clocks_agree;

static const uint64_t AGREE_WINDOW_NS = 60ull * 1000000000ull;

bool gpu_clock_start_is_stale(uint64_t gpu_start_ns, uint64_t enqueue_wall_ns) {
  if (enqueue_wall_ns == 0 || gpu_start_ns == 0) return false;
  if (!atomic_load_explicit(&clocks_agree, memory_order_relaxed)) return false;
  return gpu_start_ns + GPU_CLOCK_STALE_TOLERANCE_NS < enqueue_wall_ns;
}

void gpu_clock_observe(uint64_t earliest_gpu_start_ns, uint64_t enqueue_wall_ns) {
  if (enqueue_wall_ns == 0 || earliest_gpu_start_ns == 0) return;
  if (atomic_load_explicit(&clocks_agree, memory_order_relaxed)) return;
  if (earliest_gpu_start_ns + GPU_CLOCK_STALE_TOLERANCE_NS >= enqueue_wall_ns &&
      earliest_gpu_start_ns <= enqueue_wall_ns + AGREE_WINDOW_NS) {
    atomic_store_explicit(&clocks_agree, 1, memory_order_relaxed);
  }
}

void gpu_clock_reset(void) { atomic_store_explicit(&clocks_agree, 0, memory_order_relaxed); }
