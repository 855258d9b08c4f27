/* When NCCL last launched a kernel from the calling thread (host monotonic time).
 *
 * With interface v5 and later NCCL reports each kernel launch (KernelLaunch start, just before
 * cuLaunchKernelEx) on the thread that launches, and then, on the same thread, starts the Coll and
 * P2p events of that launch's plan (facts doc §3.2): the launch time read at an operation's start is
 * its own kernel's launch time, a time no kernel channel of it can precede. Where the operation
 * starts on another thread (a CUDA-graph replay runs it from a CUDA host-function thread) the value
 * is older or 0: an older launch only makes the check weaker, never wrong, and 0 means unknown. */
#ifndef NCCL_INSPECTOR_LAUNCH_CLOCK_H
#define NCCL_INSPECTOR_LAUNCH_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>

extern _Thread_local uint64_t tls_last_launch_mono_ns;
extern _Thread_local uint32_t tls_last_launch_epoch;
/* Bumped whenever the clock's time base may change (a new session, a virtual clock set or
 * removed): a launch noted before belongs to another time base and counts as unknown. */
extern _Atomic uint32_t g_launch_epoch;

/* A KernelLaunch start on this thread: one clock read, no shared state. */
void launch_clock_note(void);

/* Forgets every thread's launch (their next read finds an older epoch). */
void launch_clock_new_epoch(void);

/* The last launch noted on this thread in the current time base, 0 if none. Relaxed: the epoch is
 * a self-contained value, bumped only while no operation starts (enable, replay set-up). */
static inline uint64_t launch_clock_last(void) {
  return tls_last_launch_epoch == atomic_load_explicit(&g_launch_epoch, memory_order_relaxed)
             ? tls_last_launch_mono_ns
             : 0;
}

#endif
