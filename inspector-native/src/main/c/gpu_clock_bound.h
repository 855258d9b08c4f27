/* A safe lower bound of each GPU's clock offset from host time, learned from NCCL's own callbacks.
 *
 * NCCL's kernel-channel timestamps come from the GPU's %globaltimer: epoch nanoseconds, but not the
 * host's clock. Its offset from host wall time was measured at -0.3 ms to +2.2 ms depending on the
 * run and the GPU, drifting by about 4 ppm (facts doc §3.4.1), so no fixed tolerance can say whether
 * a GPU timestamp is too early for an operation.
 *
 * Causality gives a bound that needs no tolerance: the proxy thread can only report a kernel
 * channel's start after the GPU wrote it, so for every KernelCh start callback
 *
 *     gpu_start - host_wall_at_callback  <=  offset  (= gpu_clock - host_wall, at that moment)
 *
 * The largest such difference seen recently is therefore never above the true offset; it falls
 * short of it by the quickest delivery seen. Every operation contributes one observation (its first
 * channel start); the bound is the largest observation of the last GPU_CLOCK_WINDOW_NS, so it
 * follows drift and steps of either clock within that window instead of trusting an old maximum.
 * Observations are kept per CUDA device ordinal (one more entry serves communicators whose device
 * is unknown, as in a replay), as the largest of each period of about 67 ms, in GPU_CLOCK_RING
 * buckets that together span the window (gpu_clock_bound.c).
 *
 * A kernel cannot start before it was launched, so a channel whose GPU start is earlier than
 * (launch host time + bound) carries the timestamp of other, earlier work: see op_timing.h. */
#ifndef NCCL_INSPECTOR_GPU_CLOCK_BOUND_H
#define NCCL_INSPECTOR_GPU_CLOCK_BOUND_H

#include <stdbool.h>
#include <stdint.h>

/* Devices with an entry of their own (CUDA ordinals 0..63); others share GPU_CLOCK_UNKNOWN_DEVICE. */
#define GPU_CLOCK_DEVICES 64
#define GPU_CLOCK_UNKNOWN_DEVICE GPU_CLOCK_DEVICES
/* Periods kept per device (about 67 ms each), and how far (host monotonic time) from the moment
 * judged an observation may be to count. */
#define GPU_CLOCK_RING 16
#define GPU_CLOCK_WINDOW_NS 1000000000ull

/* The entry a communicator on CUDA device `ordinal` (-1: unknown) uses. */
static inline uint8_t gpu_clock_device_slot(int ordinal) {
  return (ordinal >= 0 && ordinal < GPU_CLOCK_DEVICES) ? (uint8_t)ordinal : GPU_CLOCK_UNKNOWN_DEVICE;
}

/* Records one observation: a channel's GPU start, and the host wall and monotonic times of its
 * callback. */
void gpu_clock_observe(uint8_t device, uint64_t gpu_start_ns, uint64_t callback_wall_ns,
                       uint64_t callback_mono_ns);

/* The lower bound of (GPU clock - host wall time) for `device` at host monotonic time `now_mono_ns`:
 * false when no observation of the window exists (then nothing can be judged). */
bool gpu_clock_offset_bound(uint8_t device, uint64_t now_mono_ns, int64_t* bound_ns);

/* Forgets every observation (a new session; a replay with its own clock). */
void gpu_clock_reset(void);

#endif
