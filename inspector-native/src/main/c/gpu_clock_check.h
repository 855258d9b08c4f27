/* Stale GPU timestamps.
 *
 * NCCL reads a kernel channel's GPU timestamps from per-channel slots that later work overwrites
 * (facts §3.4); on a busy or shared GPU the proxy can deliver a slot's older content, so an
 * operation gets another operation's timestamps. Such a timestamp can be recognised when the GPU
 * clock runs on host time (NVIDIA's %globaltimer does, synchronised by the driver): no kernel of
 * an operation can start before the operation was enqueued.
 *
 * The rule applies only once the two clocks are known to agree: when an operation's earliest GPU
 * start has been seen within [enqueue - tolerance, enqueue + 60 s]. On a system whose GPU timer is
 * not on host time no operation ever passes that test, and nothing is judged. */
#ifndef NCCL_INSPECTOR_GPU_CLOCK_CHECK_H
#define NCCL_INSPECTOR_GPU_CLOCK_CHECK_H

#include <stdbool.h>
#include <stdint.h>

/* A GPU start may precede its operation's enqueue wall time by this much (clock granularity and
 * synchronisation error; on an H200 genuine starts came 0.31 ms or more after the enqueue). */
#define GPU_CLOCK_STALE_TOLERANCE_NS 1000000ull

/* Whether a channel's GPU start is stale for an operation enqueued at `enqueue_wall_ns`. */
bool gpu_clock_start_is_stale(uint64_t gpu_start_ns, uint64_t enqueue_wall_ns);

/* Learns from an operation whose channels all had plausible GPU intervals. */
void gpu_clock_observe(uint64_t earliest_gpu_start_ns, uint64_t enqueue_wall_ns);

/* Forgets what was learned (tests; a replay with its own clock). */
void gpu_clock_reset(void);

#endif
