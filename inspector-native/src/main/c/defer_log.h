/* Deferred mode: NCCL's threads only log their calls; one consumer does the core's work.
 *
 * In deferred mode (setting NCCL_INSPECTOR_DEFERRED, interfaces v4-v6) each callback copies its
 * arguments and a clock reading into its thread's log and returns a handle that is a number: the
 * log and the position of its start entry. It allocates nothing, takes no lock and calls none of
 * the core's functions, unless its log is full: then it replays the logs itself, under the
 * consumer's lock, before it logs (back-pressure, not loss). One consumer at a time (the consumer
 * thread, a producer whose log is full, a communicator's init, the sweep, the inspector's close)
 * replays the logs through the core's own entry points
 * (profiler_core.h), merged across threads in the order of their clock readings. The core reads
 * each replayed call's time from its entry (clock_mono_ns under an override), and the calling
 * thread's step tag and last launch from copies the consumer keeps per log. What the consumer does
 * is what the synchronous mode does inside the callbacks; docs/research/deferred-core.md sets out
 * why the order and the handles need the care they get here.
 *
 * Handles: a log handle is (log index + 1) << 56 | position << 2 | 1. The consumer maps it to the
 * handle the core returned for that start (a hash table, entries leaving it at a channel's or proxy
 * event's stop, once the core's handle is stale, or, for thread-tag and empty results, after an
 * age). Thread-tag handles
 * (P2pApi, graph-captured CollApi) and the CUPTI launch handle are made at once, as in the
 * synchronous mode.
 *
 * Memory: DEFER_LOGS logs of DEFER_LOG_UNITS 64-byte units (4 MiB each, mapped at the first enable
 * in deferred mode, touched as they fill: a thread's log is resident once it has gone round), one
 * more shared log, and the handle map (DEFER_MAP_SIZE entries, 3 MiB), kept for the life of the
 * process. A thread claims a free log at its first call and gives it back when it exits; where
 * none is free, it takes over the log of a thread that exited, entries not yet replayed and all
 * (counted deferred_log_taken_over), so that threads that come and go faster than the consumer
 * frees their logs (NCCL's async-job threads) never run out. A thread that finds neither, because
 * 32 threads with logs are alive (counted deferred_shared_log, once), logs through the shared log, whose writers
 * take a lock around each entry: its calls are kept, in their order, at the price of the lock, and
 * its operations are replayed without a launch time (as an operation started away from its
 * launching thread is; launch_clock.h); every 4,096 such calls it looks for a free log again. A
 * call whose log is still full after its thread helped is lost (deferred_log_full).
 *
 * Pacing: the consumer thread's rounds stop while three quarters of the record ring are taken,
 * and leave the rest in the logs until the drain has made room, but only until a log is half
 * full: then they replay into the ring, whose drops are counted, so that a stalled drain never
 * makes NCCL's threads replay. A producer whose log is full replays whatever the ring's fill
 * (counted deferred_helped; its call would be lost otherwise). */
#ifndef NCCL_INSPECTOR_DEFER_LOG_H
#define NCCL_INSPECTOR_DEFER_LOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core_state.h"
#include "defer_clock.h"
#include "profiler_core.h"

#define DEFER_LOGS 32 /* logs a thread may own; the shared log is one more */
#define DEFER_LOG_UNITS 65536 /* a power of two: 4 MiB */
#define DEFER_MAP_BITS 17
#define DEFER_MAP_SIZE (1u << DEFER_MAP_BITS)

/* defer_on() (core_state.h): whether callbacks log or call the core; the consumer's replay context
 * (defer_clock.h). */

/* The deferred twins of the core's entry points (NCCL's threads). */
void* defer_op_start(void* context, const core_op_event* ev);
void* defer_channel_start(void* parent, uint8_t channel_id, uint64_t gpu_start_ns);
void* defer_coll_api_start(void* context, const char* func, const char* datatype, uint64_t count,
                           int32_t root, bool graph_captured);
void* defer_launch_start(void* context);
void* defer_proxy_op_start(void* parent, uint8_t channel_id, int32_t peer, int32_t n_steps, int is_send);
void* defer_proxy_step_start(void* parent, int32_t step);
void defer_channel_gpu_stop(void* handle, uint64_t gpu_stop_ns);
void defer_proxy_step_state(void* handle, int state, uint64_t trans_size);
void defer_stop(void* handle);
/* A communicator's finalize: logged and replayed in its place (or, where it cannot be logged, after
 * replaying everything logged so far). Lock order: the consumer's lock, then the core's lifecycle
 * lock (a replayed finalize takes it); nothing that holds the lifecycle lock waits for a replay,
 * except enable, before any consumer runs. */
void defer_comm_finalize(void* context);

/* Lifecycle, under the core's lifecycle lock. Start: maps the logs and the map at the first call,
 * discards entries left from an earlier session (counted), starts the consumer thread and turns
 * the mode on; returns 0, or -1 (mode left off) when memory or the thread cannot be had. Stop:
 * replays what is left, stops the thread and turns the mode off. */
int defer_start(void);
void defer_stop_consumer(void);
/* Replays every entry published so far, whatever its time (tests, finalize, close). */
void defer_flush(void);
/* Whether a communicator's finalize is logged and not yet replayed: a new communicator's init then
 * replays the logs first, so that its records follow the finalized one's, whose id it may carry. */
bool defer_finalize_pending(void);
/* Tests: while on, the consumer thread makes no rounds. */
void defer_hold(int on);
/* One round as the consumer thread runs it (entries older than the hold-back; under a virtual
 * clock, all): the sweep and the in-flight query look at the core after the calls made so far. */
void defer_catch_up(void);
/* One round of every entry published so far, whatever its time, as far as the record ring takes
 * them (it too stops at a nearly full ring): a flush the application asked for then writes what
 * its calls made before it completed. */
void defer_replay_published(void);
/* The time up to which every call has been replayed (`now` when the mode is off or nothing waits):
 * what the in-flight expiry and the call ledger's sweep measure ages against, so that a call is
 * not judged late for the consumer's lag. */
uint64_t defer_replayed_until(uint64_t now);
/* The core's handle for a handle a call returned (itself when the mode is off; NULL when the map
 * has none), after replaying everything logged (tests that look into the core's tables). */
void* defer_core_handle(void* handle);
/* The most units any log holds unreplayed now (relaxed reads: an estimate; tests pace on it). */
uint64_t defer_backlog(void);

#endif
