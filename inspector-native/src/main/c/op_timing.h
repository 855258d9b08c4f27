/* How long an operation ran, and by which clock.
 *
 * Execution time follows the reference Inspector: the longest single channel. Per channel the
 * GPU timestamps count when both are present, in order and plausible; otherwise the CPU times of
 * that channel's callbacks stand in (kernel_cpu); without usable channels the operation's own CPU
 * span is used (collective_cpu). Unlike the reference, channels are the ones that really arrived
 * (by their NCCL channel id), durations keep nanoseconds, and the GPU span and start are kept.
 *
 * Outside verbose mode a channel's CPU times are only taken when its GPU timestamps are missing
 * or bad; a channel whose GPU start was fine but whose stop is not has no CPU start, and the
 * operation then falls back to collective_cpu (its own start to the channel's stop). */
#ifndef NCCL_INSPECTOR_OP_TIMING_H
#define NCCL_INSPECTOR_OP_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "op_table.h"

/* A GPU channel duration above this is treated as a bad timestamp, not a measurement. */
#define OP_TIMING_MAX_PLAUSIBLE_NS (3600ull * 1000000000ull)

/* Whether a channel's GPU start and stop form a usable interval. */
static inline bool op_timing_gpu_interval_ok(uint64_t start, uint64_t stop) {
  return start != 0 && stop > start && stop - start <= OP_TIMING_MAX_PLAUSIBLE_NS;
}

typedef struct op_timing {
  uint8_t source;        /* TIMING_* */
  uint8_t quarantine;    /* QUARANTINE_*: why GPU timestamps that should exist are unusable */
  uint64_t exec_ns;
  uint64_t gpu_start_ns; /* earliest valid channel GPU start, 0 if none */
  uint64_t gpu_span_ns;  /* latest valid GPU stop - earliest valid GPU start */
  uint64_t gpu_skew_ns;  /* latest valid GPU start - earliest valid GPU start */
} op_timing;

/* Computes the timing of an owned slot. `complete` is false for operations closed early.
 * Copy-engine collectives are timed by their own start and stop (ce_cpu). A completed operation
 * of interface v4+ whose channels carry a zero, reversed or absurd GPU timestamp is timed by the
 * fallback and marked with the quarantine reason of the first such channel. */
op_timing op_timing_compute(const op_slot* s, uint32_t channels_seen, bool complete);

#endif
