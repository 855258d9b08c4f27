/* Kernel-channel timestamps read too late to be the operation's own.
 *
 * NCCL keeps each channel's GPU timestamps in a ring of 64 slots that the device fills, one slot
 * per work item it runs on that channel; the proxy thread reads an operation's slot only when it
 * gets to that operation's profiler proxy step (src/proxy.cc profilerProxyProgress). When the
 * proxy thread falls behind the GPU by 64 work items or more on a channel, the slot already holds a
 * later work item's timestamps, and NCCL hands those to the operation. Seen on 2 x H200 over NVLink
 * (n2_moe): the proxy thread served channels 16-23 up to 298 operation events late, and from the
 * 27th AllReduce on those channels carried the timestamps of the work item 64 positions later
 * (about 10 ms later, kernel durations of other collectives), while their counters were in step;
 * the same channels' receive-side reads, made in time, stayed right.
 *
 * Nothing in the timestamps tells: they are real GPU times, in order per read. What tells is the
 * count of later work at the moment of the read. A work item of a later operation on the channel
 * needs a later operation, and an operation event puts at most one work item on each channel (one
 * ncclDevWork per channel for a collective; a send and a receive in one P2P round share one), so
 * while fewer than 64 operation events of the communicator started after this one, its slot
 * cannot have been reused. Counting every Coll and P2p event of the communicator, tracked or not,
 * overcounts (a send and its receive count twice) and so errs on the side of leaving a channel
 * out. The count misses device work NCCL gives no operation event: NCCL 2.29-2.30's Broadcast on
 * its AllGatherV path, which the NCCL workaround (docs/nccl-defects-and-releases.md,
 * "NCCL releases") turns off.
 *
 * CUDA-graph replays are not judged so (profiler_core.c): their operation events come in bursts as
 * the replay runs, far ahead of the GPU's progress, and their channels read 300 events later were
 * right against CUPTI. */
#ifndef NCCL_INSPECTOR_CHANNEL_LATE_READ_H
#define NCCL_INSPECTOR_CHANNEL_LATE_READ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "comm_table.h"

/* Slots of NCCL's per-channel timestamp ring (MAX_PROFILER_EVENTS_PER_CHANNEL in src/include/device.h,
 * 64 in the 2.30.7 sources; 2.28.9's behaviour in n2_moe matches it). */
#define NCCL_CHANNEL_TIMESTAMP_SLOTS 64

/* Numbers an operation event of communicator c: how many started before it. */
static inline uint64_t late_read_number_op(comm_slot* c) {
  /* Relaxed: a count with nothing to publish. What orders it before the device can run the
   * operation's work is the launch that follows on this thread: the driver must make its work
   * descriptors visible before it rings the GPU's doorbell, and the store barrier that takes orders
   * this earlier store too. */
  return atomic_fetch_add_explicit(&c->work_seq, 1, memory_order_relaxed);
}

/* Whether a timestamp of the operation numbered `work_sn` on communicator c, which NCCL read just
 * before this call, may belong to a later work item. */
static inline bool late_read_possible(const comm_slot* c, uint64_t work_sn) {
  /* Acquire fence: orders NCCL's read of the timestamp slot, done before this callback, before the
   * load of the count below (on x86 a compiler barrier only; on Arm a load barrier), so the count
   * is at least what it was when the slot was read. The load itself can be relaxed. ThreadSanitizer
   * does not model fences: its builds read the count with a release RMW instead, which orders the
   * earlier read as well (tests only). */
#if defined(__SANITIZE_THREAD__)
  uint64_t now = atomic_fetch_add_explicit(&((comm_slot*)c)->work_seq, 0, memory_order_acq_rel);
#else
  atomic_thread_fence(memory_order_acquire);
  uint64_t now = atomic_load_explicit(&((comm_slot*)c)->work_seq, memory_order_relaxed);
#endif
  /* Later operation events: now - work_sn - 1; 64 of them can have put a work item in its slot. */
  return now - work_sn > NCCL_CHANNEL_TIMESTAMP_SLOTS;
}

#endif
