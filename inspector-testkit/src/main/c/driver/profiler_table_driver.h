/* A stand-in for NCCL's side of the profiler interface, for trace replay and benchmarks.
 *
 * It loads a profiler plugin the way NCCL does (dlopen with RTLD_NOW | RTLD_LOCAL, then dlsym of
 * ncclProfiler_v5), and makes the calls of a recorded trace with descriptors built on its own
 * stack, as NCCL builds them. Like NCCL it only emits the event types the plugin's activation mask
 * asks for (and the API/group events those imply), and does not send a child event whose parent
 * handle the plugin left NULL, nor stop or state events for handles the plugin left NULL. Like NCCL
 * it stops a KernelLaunch the plugin gave a handle right after starting it (the recorded stop, if
 * any, is skipped).
 *
 * Events come in as a packed array of driver_event (below), produced from the trace by Java. */
#ifndef NCCL_INSPECTOR_TABLE_DRIVER_H
#define NCCL_INSPECTOR_TABLE_DRIVER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest handle or context id a trace may use: the driver's id maps are arrays of that many
 * pointers at most (128 MiB). A recorder numbers handles from 1 as it sees them, far below this. */
#define DRIVER_MAX_ID (1 << 24)

enum { DRIVER_OP_INIT = 0, DRIVER_OP_START = 1, DRIVER_OP_STOP = 2, DRIVER_OP_STATE = 3, DRIVER_OP_FINI = 4 };

/* One trace line, 128 bytes. Ids (ctx, handle, parent) are the recorder's numbers; strings are
 * ids returned by profiler_driver_intern. */
typedef struct driver_event {
  uint8_t op;          /* 0 */
  uint8_t n_channels;  /* 1 */
  uint8_t n_warps;     /* 2 */
  uint8_t channel_id;  /* 3 */
  uint32_t type;       /* 4: event type bit (start) */
  uint32_t ctx;        /* 8 */
  uint32_t handle;     /* 12 */
  uint32_t parent;     /* 16 */
  uint32_t parent_group; /* 20 */
  int32_t rank;        /* 24: descriptor rank (start), communicator rank (init) */
  int32_t peer_or_root;/* 28 */
  uint64_t t_mono;     /* 32 */
  uint64_t t_wall;     /* 40 */
  uint64_t a;          /* 48: seqNumber / commId / pTimer / state argument */
  uint64_t count;      /* 56 */
  uint16_t func;       /* 64: string ids (init: comm name in func) */
  uint16_t datatype;   /* 66 */
  uint16_t algo;       /* 68 */
  uint16_t proto;      /* 70 */
  uint32_t state;      /* 72 */
  int32_t nnodes;      /* 76 */
  int32_t nranks;      /* 80 */
  int32_t i0;          /* 84: proxyOp pid / groupApi depth / proxyStep step; init: NCCL version code */
  int32_t i1;          /* 88: proxyOp nSteps; init: the profiler interface version recorded */
  int32_t i2;          /* 92: proxyOp chunkSize */
  int32_t i3;          /* 96: proxyOp isSend */
  uint8_t graph_captured; /* 100 */
  uint8_t reserved0[3];   /* 101 */
  uint32_t tid;           /* 104: the recorded thread (its Linux id; 0 if not recorded) */
  uint8_t reserved[20];   /* 108 */
} driver_event;

/* Opens a plugin: its ncclProfiler_v5 table, and ncclProfiler_v6 if it has one. A communicator
 * whose init event names interface 6 (a trace recorded under NCCL 2.29+) is driven through v6,
 * which also carries copy-engine events; every other through v5. Returns 0, or -1 with
 * profiler_driver_error(). */
int profiler_driver_open(const char* library_path);
/* The profiler interface versions the opened plugin exports a table of (bit N: ncclProfiler_vN), as
 * NCCL looks them up by name. */
int profiler_driver_exported_versions(void);
/* Uses a built-in plugin whose functions return at once (the benchmark's baseline). */
int profiler_driver_open_null(void);
const char* profiler_driver_error(void);
/* The path the dynamic loader resolved for the opened plugin (dlinfo), as NCCL logs it. */
const char* profiler_driver_loaded_path(void);
/* Sizes the id maps; call before run. Each maximum must be in 0..DRIVER_MAX_ID (else -1). Events
 * whose ids fall outside the maps are not sent (NCCL would never make them). */
int profiler_driver_prepare(int max_handle_id, int max_ctx_id);
/* Keeps a copy of s for the life of the process; returns its id (0 is reserved for NULL). */
int profiler_driver_intern(const char* s);
/* Makes `count` calls. With virtual_clock != 0 the plugin's clock follows the trace (through its
 * exported nccl_inspector_set_virtual_clock; the clock stays virtual after the run, so that a
 * flush at close still uses trace time: the caller switches it off). If call_ns is not NULL, the duration of each call
 * made is stored there (0 for events not sent). Returns the number of calls made, or -1. */
long long profiler_driver_run(const void* events, long long count, int virtual_clock,
                              long long* call_ns);
/* Makes the calls of `count` events on the threads that made them, at the pace they were made: one
 * thread per recorded thread id (at most DRIVER_PACED_THREADS), each making its events in order,
 * none before its recorded time from the first event (divided by `speed`, 1.0 the recorded pace),
 * none before the other threads' calls recorded more than `window_ns` before it (closer calls may
 * come in either order, as they race in a live run; farther ones keep their order, as causality
 * kept it in the recorded run: a GPU timestamp is read after its launch) and none before the
 * events it names were made: the start of its parent, parent group or handle, its communicator's
 * init; a finalize waits for every event before it in the array. The plugin's clock is virtual and
 * per thread: each call reads its recorded time (the plugin must export the virtual clock, and the
 * caller switches it off after the run). lag_ns, if not NULL, gets how late calls were made
 * against their pace: [0] the mean, [1] the largest; and how far from the recorded order: [2] the
 * calls made after a call of another thread recorded later, [3] the largest such inversion
 * (recorded ns). Returns the calls made, or -1 (profiler_driver_error) when an event waited 10 s
 * for another (a trace whose order cannot be replayed) or a thread could not be made. */
#define DRIVER_PACED_THREADS 64
long long profiler_driver_run_paced(const void* events, long long count, double speed, long long window_ns,
                                    long long* lag_ns);
/* Sets the opened plugin's virtual clock (as a run with virtual_clock != 0 does per event), or
 * with enabled == 0 gives it back its real clock. Returns 0, or -1 if the plugin has no virtual
 * clock (not this project's core, or the built-in null plugin). */
int profiler_driver_set_virtual_clock(int enabled, unsigned long long mono_ns, unsigned long long wall_ns);
/* The NCCL release this stand-in claims to be: the driver exports ncclGetVersion, which the plugin
 * may ask at init (as it asks NCCL). An init event that carries a version sets it for that init;
 * 0 (unknown) makes ncclGetVersion report 0. */
void profiler_driver_set_nccl_version(int version_code);

/* Finalizes every communicator a run initialized and did not finalize (a trace cut short), as
 * the process would have at its teardown; returns how many. Call before close. */
int profiler_driver_finalize_open(void);
/* Forgets handles and contexts (dlclose, as NCCL's unload does). */
void profiler_driver_close(void);

/* The process environment through libc, as NCCL reads it (NULL when unset): Java's own view of
 * the environment is a copy taken at JVM start. */
const char* profiler_driver_getenv(const char* name);
/* Sets (value not NULL) or unsets a variable of the process environment; 0 on success. */
int profiler_driver_setenv(const char* name, const char* value);

/* Bytes the process has allocated with malloc and not freed (glibc mallinfo2), for tests and
 * benchmarks that check native memory stays flat; -1 where unavailable. */
long long profiler_driver_malloc_in_use(void);

/* The layout of driver_event by field name (driver_layout.c), as the core exports its records':
 * entry i has a name such as "driver.t_mono", a byte offset and a size (0 for constants such as
 * "driver_event_bytes", whose value is the offset). */
int profiler_driver_layout_count(void);
const char* profiler_driver_layout_name(int i);
int profiler_driver_layout_offset(int i);
int profiler_driver_layout_size(int i);

#ifdef __cplusplus
}
#endif

#endif
