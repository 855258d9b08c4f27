/* The version-independent event handling. Each interface version's adapter (abi_v*.c) translates
 * NCCL's descriptor into a core_op_event and calls these functions; nothing below this line
 * branches on the interface version. */
#ifndef NCCL_INSPECTOR_PROFILER_CORE_H
#define NCCL_INSPECTOR_PROFILER_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "nccl_profiler_abi.h"

/* How an operation's completion is known, which depends on the interface version. */
typedef enum {
  CHANNELS_COUNTED = 0,   /* v4+: it completes when its n_channels kernel channels have stopped */
  CHANNELS_NONE = 1,      /* v1, v2, copy-engine: no channel events; it completes at its stop */
  CHANNELS_UNCOUNTED = 2  /* v3: n_channels is NCCL's maximum, not the count that will arrive; it
                             completes once its started channels have stopped and stayed quiet */
} core_channel_mode;

typedef struct core_op_event {
  uint8_t kind; /* RECORD_KIND_COLL or RECORD_KIND_P2P */
  const char* func;
  const char* datatype;
  const char* algo;  /* collectives only */
  const char* proto; /* collectives only */
  uint64_t seq;      /* collectives only: NCCL's seqNumber */
  uint64_t count;
  int32_t peer_or_root;
  uint8_t n_channels;
  uint8_t n_warps;
  uint8_t channel_mode;  /* core_channel_mode */
  uint8_t copy_engine;   /* a v6 copy-engine collective */
  uint64_t comm_hash;    /* v1-v3 carry the communicator in every event (0: take the context's) */
  int32_t rank;          /* v1-v3: the descriptor's rank (-1: take the context's) */
  const void* parent;    /* the parent handle (v5/v6: the CollApi/P2pApi event, carrying the tag) */
  uint64_t launch_id;    /* with launch_id_given: CUPTI's launch id, taken on the calling thread */
  uint8_t launch_id_given; /* the deferred mode's replay (defer_log.h); 0: the core takes it */
} core_op_event;

/* Builds the usual event of interface versions 4 to 6 (communicator from the context). */
static inline core_op_event core_op_event_v4(uint8_t kind, const char* func, const char* datatype,
                                             const char* algo, const char* proto, uint64_t seq,
                                             uint64_t count, int32_t peer_or_root,
                                             uint8_t n_channels, uint8_t n_warps) {
  core_op_event ev = {kind, func, datatype, algo, proto, seq, count, peer_or_root, n_channels,
                      n_warps, CHANNELS_COUNTED, 0, 0, -1, NULL, 0, 0};
  return ev;
}

/* A start event of interface 1, 2 or 3 in the core's form: what those adapters translate their
 * descriptors into (interfaces 4 to 6 call the entry points below directly: abi_translate.h). */
typedef enum {
  CORE_EVENT_IGNORED = 0,
  CORE_EVENT_OP = 1,
  CORE_EVENT_CHANNEL = 2
} core_event_kind;

typedef struct core_event {
  core_event_kind kind;
  core_op_event op;      /* CORE_EVENT_OP */
  void* parent;          /* CORE_EVENT_CHANNEL: the operation's handle */
  uint8_t channel_id;    /* CORE_EVENT_CHANNEL */
  uint64_t gpu_start_ns; /* CORE_EVENT_CHANNEL: 0 where the interface has no timestamp */
} core_event;

/* Dispatches a translated start event; returns the handle for NCCL (NULL: untracked). */
void* core_event_start(void* context, const core_event* ev);

/* init: returns the context for NCCL (NULL when the inspector is not enabled or full) and sets
 * the activation mask. Never fails towards NCCL (facts doc 1.4: a failing init misbehaves).
 * `caller` is an address inside the NCCL library that called (its init's return address), which
 * tells the NCCL release (nccl_release.h). */
void* core_comm_init(uint64_t comm_id, int* activation_mask, const char* comm_name, int nnodes,
                     int nranks, int rank, ncclDebugLogger_t logfn, uint32_t abi_version,
                     const void* caller);
void core_comm_finalize(void* context);

/* Start of a collective or P2P operation; returns its handle or NULL. */
void* core_op_start(void* context, const core_op_event* ev);
/* Start of a kernel channel under `parent` (an operation handle); returns its handle or NULL. */
void* core_channel_start(void* parent, uint8_t channel_id, uint64_t gpu_start_ns);
/* CollApi (v5+) on the enqueuing thread: the call ledger's handle, or the thread's tag. */
void* core_coll_api_start(void* context, const char* func, const char* datatype, uint64_t count, int32_t root,
                          bool graph_captured);
/* P2pApi (v5+): the thread's tag, for the P2p events under it. */
void* core_p2p_api_start(bool graph_captured);
/* KernelLaunch (v5+): its time bounds its kernels' starts; a handle only while CUPTI names it. */
void* core_launch_start(void* context);
/* The launch's clock and recovery note alone, without CUPTI's naming (the deferred mode's replay). */
void core_launch_note(void* context);
/* recordEventState(KernelChStop): the channel's GPU stop time. */
void core_channel_gpu_stop(void* handle, uint64_t gpu_stop_ns);
/* stopEvent for any handle the core issued (or NULL). */
void core_stop(void* handle);

/* The activation mask the core asks NCCL for, for a communicator on interface `abi_version`. */
int core_activation_mask(uint32_t abi_version);

#endif
