/* Kernel times from CUPTI's activity records (opt-in): a second, independent source of GPU time
 * for the operations NCCL's kernel-channel events cannot time (channel_recovery.h: overwritten or
 * never delivered readings).
 *
 * How a kernel is named: NCCL reports each kernel launch (KernelLaunch start, interface v5+) on the
 * launching thread right before cuLaunchKernelEx, and its stop right after. At the start this
 * module pushes a launch id onto CUPTI's external-correlation stack of that thread and pops it at
 * the stop, so CUPTI reports {launch id, correlation id} for that launch and the kernel record of
 * the same correlation id carries the kernel's start and end: no matching by name or order. The
 * operations of that launch start next on the same thread, and take the launch id (as
 * launch_clock.h takes the launch time); the kernel record says how many did, written only once
 * that count is final (the first of them stopped: NCCL starts all operations of a plan before it
 * stops any), so a kernel that ran two operations is never taken for one's.
 *
 * Threads: launch start/stop and operation starts run on NCCL's threads (a push or pop into CUPTI
 * and atomics on one slot; no allocation, no lock). CUPTI hands buffers back on its own thread or
 * on the thread that flushes (the JVM's dump thread); they are parsed under a mutex there, and the
 * joined kernels go into the record ring as RECORD_KIND_KERNEL records (record_format.h). Java
 * joins them to the operation records (KernelTimeJoiner).
 *
 * One CUPTI client per process: if CUPTI cannot be had (no GPU, another tool holds it, no
 * library), start says why and nothing stays registered. */
#ifndef NCCL_INSPECTOR_KERNEL_RECORDS_H
#define NCCL_INSPECTOR_KERNEL_RECORDS_H

#include <stdint.h>

#include "cupti_abi.h"

enum {
  KERNEL_RECORDS_OFF = 0,        /* never asked for, or stopped */
  KERNEL_RECORDS_ACTIVE = 1,     /* CUPTI delivers kernel records */
  KERNEL_RECORDS_UNAVAILABLE = 2, /* asked for, could not be had: kernel_records_reason() says why */
  KERNEL_RECORDS_STOPPING = 3     /* stop under way: no launch named, the last buffers parsed */
};

/* Buffers handed to CUPTI (allocated at start, reused): KR_BUFFERS of KR_BUFFER_BYTES. */
#define KR_BUFFERS 16
#define KR_BUFFER_BYTES (1u << 20)
/* Launches whose operation count is kept (a ring by launch id). */
#define KR_LAUNCH_SLOTS 16384
/* Correlation ids waiting for their other half (direct-mapped by correlation id). */
#define KR_CORRELATION_SLOTS 16384
/* Joined kernels waiting for their launch's operation count to be final. */
#define KR_WAITING 1024

/* Loads CUPTI (`library`, or libcupti.so / .so.13 / .so.12 when NULL or empty) and starts kernel
 * records. Returns the state. Called by Java when the setting is on, after core_enable. */
int kernel_records_start(const char* library);
/* The same, reading the process's mappings from `maps` (/proc/self/maps; tests give their own; NULL:
 * not read, CUPTI shared knowingly):
 * where a libcupti that this library did not load is mapped, another part of the program may be
 * collecting CUPTI's activity records, which registering the inspector's would take over (CUPTI
 * keeps one set of activity callbacks per process); the records are then left off, with the
 * reason. */
int kernel_records_start_in(const char* library, const char* maps);
/* The same with a given table of CUPTI functions (tests). */
int kernel_records_start_with(const cupti_api* api);
/* Flushes CUPTI's buffers, stops the records and gives the buffers back. Called at close. */
void kernel_records_stop(void);
/* Hands every completed buffer over now (the dump thread, every few tens of milliseconds). */
void kernel_records_flush(void);
int kernel_records_state(void);
const char* kernel_records_reason(void);

/* KernelLaunch start on NCCL's launching thread: 1 if a launch id was pushed (its stop must pop). */
int kernel_records_launch_start(void);
/* KernelLaunch stop of a launch whose start pushed an id. */
void kernel_records_launch_stop(void);
/* An operation starts: this thread's last launch id (counted as one more operation of it), 0 if
 * kernel records are off or this thread launched nothing since they started. */
uint64_t kernel_records_op_launch(void);
/* Whether CUPTI's kernel records are being taken now (relaxed: a hint for skipping work). */
int kernel_records_active(void);

/* The first stop of an operation of launch `launch_id`: every operation of its plan has started
 * (NCCL starts them all before it stops any), so the launch's count is final. */
void kernel_records_op_stopped(uint64_t launch_id);

/* One activity record, as CUPTI's buffer walk gives it (tests feed records directly). */
void kernel_records_accept(const void* record);

#endif
