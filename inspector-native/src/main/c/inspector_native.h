/* The functions Java calls (through the JavaCPP mapping in InspectorNative.java).
 *
 * Plain C types only, so that JavaCPP's generated C++ can include this header. None of these is
 * called by NCCL; all of them may take locks or allocate. */
#ifndef NCCL_INSPECTOR_NATIVE_H
#define NCCL_INSPECTOR_NATIVE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Allocates the tables and starts accepting communicators. Returns 0, 1 (tables of an earlier
 * session kept because communicators still use them), or a negative error code. */
int nccl_inspector_enable(int op_slots, int comm_slots, int ring_cells, long long min_size_bytes,
                          int enable_p2p, int verbose, int require_kernel_timing,
                          long long inflight_expiry_ns);
/* Stops accepting operations and flushes those in flight into the ring. */
void nccl_inspector_close(void);
/* Frees the tables (now, or when the last live communicator is finalized). */
void nccl_inspector_release(void);
/* 0 off, 1 enabled, 2 paused, 3 closed. */
int nccl_inspector_state(void);
void nccl_inspector_set_paused(int paused);
/* Whether communicators initialised from now on ask NCCL for proxy events, which make each
 * operation's network breakdown (proxy_breakdown.h). On by default. */
void nccl_inspector_set_network_breakdown(int on);
/* Whether communicators initialised from now on recover the times of kernel channels NCCL put out
 * of step (channel_recovery.h). On by default. */
void nccl_inspector_set_channel_recovery(int on);
/* Whether the next enable may take CPU times from the TSC (tsc_clock.h). On by default. */
void nccl_inspector_set_tsc_clock(int on);
/* Deferred mode (defer_log.h): taken at the next enable while no communicator is live. */
void nccl_inspector_set_deferred(int on);
/* Whether callbacks log for the consumer now. */
int nccl_inspector_deferred_active(void);
/* Replays every call logged so far (tests; a no-op when the mode is off). */
void nccl_inspector_defer_flush(void);
/* Replays the calls logged so far as far as the record ring takes them (a flush the application
 * asked for; a no-op when the mode is off): defer_replay_published. */
void nccl_inspector_defer_replay_published(void);
/* Tests: while on, the deferred mode's consumer thread makes no rounds (calls are still replayed
 * by a flush, by a thread whose log is full, at a finalize and at close). */
void nccl_inspector_defer_hold(int on);
/* 1 if CPU times come from the TSC now, 0 if from clock_gettime. */
int nccl_inspector_tsc_clock_active(void);
void nccl_inspector_set_min_size(long long min_size_bytes);

/* CUPTI kernel records (kernel_records.h): start (library: a path, or NULL/"" for the default
 * names) returns the state, 1 active, 2 unavailable (reason says why); flush hands CUPTI's
 * completed buffers over; stop is also done by close. */
/* shared: start even where a libcupti the inspector did not load is in the process. */
int nccl_inspector_kernel_records_start(const char* library, int shared);
void nccl_inspector_kernel_records_flush(void);
void nccl_inspector_kernel_records_stop(void);
int nccl_inspector_kernel_records_state(void);
const char* nccl_inspector_kernel_records_reason(void);

/* Copies whole records into buffer (at most capacity bytes); returns the bytes copied. */
long long nccl_inspector_drain(void* buffer, long long capacity);
/* Recording mode: starts writing every callback into a trace ring of `ring_cells` 64-byte cells
 * (a power of two); returns 0, or -1 if the inspector is not enabled or memory is short. */
int nccl_inspector_trace_start(int ring_cells);
void nccl_inspector_trace_stop(void);
/* Copies whole raw events (trace_recorder.h) into buffer; returns the bytes copied. */
long long nccl_inspector_drain_trace(void* buffer, long long capacity);

/* Operations in flight for at least min_age_ns (inflight_query.h entries, 64 bytes each) into
 * buffer; returns how many were written (at most max_entries). */
int nccl_inspector_inflight(long long min_age_ns, void* buffer, int max_entries);

/* Tags the operations the calling thread enqueues from now on (thread_tags.h): step -1 and
 * phase 0 mean none. */
void nccl_inspector_set_thread_tag(long long step, int phase);

/* Expires old in-flight operations and refreshes the wall-clock offset; returns how many closed. */
int nccl_inspector_sweep(void);
long long nccl_inspector_ring_used_cells(void);
int nccl_inspector_live_comms(void);

int nccl_inspector_counter_count(void);
const char* nccl_inspector_counter_name(int id);
/* 0 drop, 1 note, 2 quarantine */
int nccl_inspector_counter_kind(int id);
long long nccl_inspector_counter(int id);

int nccl_inspector_name_count(int table);
const char* nccl_inspector_name(int table, int id);
/* The record layout by field name (record_format.h): entry i's name, byte offset and size. */
int nccl_inspector_layout_count(void);
const char* nccl_inspector_layout_name(int i);
int nccl_inspector_layout_offset(int i);
int nccl_inspector_layout_size(int i);

/* Absolute path of the shared object this code lives in (what NCCL must dlopen), or NULL. */
const char* nccl_inspector_library_path(void);
/* 1 if a libnccl shared object is mapped into this process already. */
int nccl_inspector_nccl_loaded(void);

/* Process environment through libc (Java's own view of the environment is a copy taken at JVM
 * start). get returns NULL when unset; set returns 0 on success. */
const char* nccl_inspector_getenv(const char* name);
int nccl_inspector_setenv(const char* name, const char* value);

/* Exported for replays, not mapped to Java: the table driver (the test kit's stand-in for NCCL)
 * looks it up with dlsym in the plugin it opened. With enabled != 0 the core's clock reads
 * mono_ns / wall_ns instead of the system; with enabled == 2 each thread reads the time it set
 * itself (a paced replay on the recorded threads; clock.h). */
void nccl_inspector_set_virtual_clock(int enabled, unsigned long long mono_ns,
                                      unsigned long long wall_ns);

#ifdef __cplusplus
}
#endif

#endif
