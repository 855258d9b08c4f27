/* How long an operation ran, and by which clock.
 *
 * Execution time follows the reference Inspector: the longest single channel. Per channel the
 * GPU timestamps count when both are present, in order and plausible; otherwise the CPU times of
 * that channel's callbacks stand in (kernel_cpu); without usable channels the operation's own CPU
 * span is used (collective_cpu). Unlike the reference, channels are the ones that really arrived
 * (by their NCCL channel id), durations keep nanoseconds, and the GPU span and start are kept. */
#ifndef NCCL_INSPECTOR_OP_TIMING_H
#define NCCL_INSPECTOR_OP_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "op_table.h"

/* A GPU channel duration above this is treated as a bad timestamp, not a measurement. */
#define OP_TIMING_MAX_PLAUSIBLE_NS (3600ull * 1000000000ull)

typedef struct op_timing {
  uint8_t source;        /* TIMING_* */
  uint64_t exec_ns;
  uint64_t gpu_start_ns; /* earliest valid channel GPU start, 0 if none */
  uint64_t gpu_span_ns;  /* latest valid GPU stop - earliest valid GPU start */
} op_timing;

/* Computes the timing of an owned slot. `complete` is false for operations closed early. */
op_timing op_timing_compute(const op_slot* s, uint32_t channels_seen, bool complete);

#endif
