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

#include <stdint.h>

extern _Thread_local uint64_t tls_last_launch_mono_ns;

/* A KernelLaunch start on this thread: one clock read, no shared state. */
void launch_clock_note(void);

/* The last launch noted on this thread, 0 if none. */
static inline uint64_t launch_clock_last(void) { return tls_last_launch_mono_ns; }

#endif
