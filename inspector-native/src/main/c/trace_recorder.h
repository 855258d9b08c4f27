/* Opt-in raw event recording: every callback NCCL makes, as it made it, into a second ring that
 * Java drains and writes in the recorded-trace format (shared/traces/FORMAT.md), so that a
 * misbehaving run can be replayed anywhere with bin/nccl-inspector replay.
 *
 * Off, it costs one relaxed load per callback. On, each callback also reads the clock, its
 * thread id (cached per thread after the first call) and copies ~200 bytes into the trace ring;
 * a full ring drops the event and counts it (trace_ring_full). */
#ifndef NCCL_INSPECTOR_TRACE_RECORDER_H
#define NCCL_INSPECTOR_TRACE_RECORDER_H

#include <stdatomic.h>
#include <stdint.h>

#include "inspector_limits.h"
#include "nccl_profiler_abi.h"
#include "record_ring.h"

enum { TRACE_EV_INIT = 0, TRACE_EV_START = 1, TRACE_EV_STOP = 2, TRACE_EV_STATE = 3, TRACE_EV_FINI = 4 };

#define TRACE_STRING_BYTES 16

/* One callback, three cells. Pointers and handles are raw values: Java numbers them. */
typedef struct trace_event {
  uint16_t kind;          /* 0: RECORD_KIND_TRACE */
  uint16_t cells;         /* 2 */
  uint8_t ev;             /* 4: TRACE_EV_* */
  uint8_t abi_version;    /* 5 */
  uint8_t n_channels;     /* 6 */
  uint8_t n_warps;        /* 7 */
  uint32_t tid;           /* 8 */
  uint32_t type;          /* 12: event type bit (start) */
  uint64_t t_mono;        /* 16 */
  uint64_t t_wall;        /* 24 */
  uint64_t context;       /* 32: context value (init: the one returned) */
  uint64_t handle;        /* 40: handle returned (start) or passed (stop, state) */
  uint64_t parent;        /* 48 */
  uint64_t parent_group;  /* 56 */
  int32_t rank;           /* 64: descriptor rank (start), communicator rank (init) */
  int32_t peer_or_root;   /* 68 */
  uint64_t a;             /* 72: seqNumber / commId / pTimer / state argument */
  uint64_t count;         /* 80 */
  uint8_t channel_id;     /* 88 */
  uint8_t graph_captured; /* 89 */
  uint16_t reserved0;     /* 90 */
  uint32_t state;         /* 92 */
  int32_t nnodes;         /* 96 */
  int32_t nranks;         /* 100 */
  int32_t i0;             /* 104: proxyOp pid / groupApi depth / proxyStep step */
  int32_t i1;             /* 108: proxyOp nSteps */
  int32_t i2;             /* 112: proxyOp chunkSize */
  int32_t i3;             /* 116: proxyOp isSend */
  uint64_t stream;        /* 120 */
  union {
    struct {
      char func[TRACE_STRING_BYTES];     /* 128 */
      char datatype[TRACE_STRING_BYTES]; /* 144 */
      char algo[TRACE_STRING_BYTES];     /* 160 */
      char proto[TRACE_STRING_BYTES];    /* 176 */
    };
    char comm_name[4 * TRACE_STRING_BYTES]; /* 128: init events */
  };
} trace_event;

_Static_assert(sizeof(trace_event) == 3 * INSPECTOR_CELL_BYTES, "trace event is three cells");

extern _Atomic int g_trace_enabled;
extern record_ring g_trace_ring;

static inline int trace_on(void) {
  /* Acquire: pairs with the release in trace_start, so a callback that sees recording on also
   * sees the ring set up (a plain load on x86). */
  return INSPECTOR_UNLIKELY(atomic_load_explicit(&g_trace_enabled, memory_order_acquire));
}

/* Allocates the trace ring (once) and starts recording; 0 on success. Called under the core's
 * lifecycle lock. */
int trace_start(uint32_t ring_cells);
/* Stops recording; the ring stays so that it can be drained. */
void trace_stop_recording(void);
/* Frees the ring: only when no communicator can call in any more (with the core's tables). */
void trace_free(void);
/* Consumer side (Java's dump thread): whole events into out; returns bytes. */
size_t trace_drain(uint8_t* out, size_t cap);

void trace_init(uint32_t abi, void* context, uint64_t comm_id, const char* name, int nnodes,
                int nranks, int rank);
void trace_fini(void* context);
/* A start event of interface v4-v6 (v6 adds copy-engine members at the same base offsets). */
void trace_start_v4_like(uint32_t abi, uint64_t type, void* context, void* handle, void* parent,
                         int rank, const ncclProfilerEventDescr_v6_t* d);
/* A start event of v1-v3, recorded from what the core understood of it. */
void trace_start_translated(uint32_t abi, uint64_t type, void* context, void* handle, void* parent,
                            int rank);
void trace_stop_event(void* handle);
void trace_state(void* handle, int state, const void* args);

#endif
