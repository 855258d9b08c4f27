#include "trace_recorder.h"

#include "core_state.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "event_counters.h"
#include "record_format.h"

_Atomic int g_trace_enabled;
record_ring g_trace_ring;
static int trace_allocated;

int trace_start(uint32_t ring_cells) {
  if (!trace_allocated) {
    if (ring_init(&g_trace_ring, ring_cells, 0) != 0) return -1;
    trace_allocated = 1;
  }
  /* Release: the ring is initialised before any callback sees recording on (trace_on). */
  atomic_store_explicit(&g_trace_enabled, 1, memory_order_release);
  return 0;
}

void trace_stop_recording(void) { atomic_store_explicit(&g_trace_enabled, 0, memory_order_relaxed); }

size_t trace_drain(uint8_t* out, size_t cap) {
  return trace_allocated ? ring_drain(&g_trace_ring, out, cap) : 0;
}

void trace_free(void) {
  atomic_store_explicit(&g_trace_enabled, 0, memory_order_relaxed);
  if (trace_allocated) {
    ring_destroy(&g_trace_ring);
    trace_allocated = 0;
  }
}

static uint32_t thread_id(void) {
  static _Thread_local uint32_t cached;
  if (cached == 0) cached = (uint32_t)syscall(SYS_gettid); /* once per thread */
  return cached;
}

static void copy_string(char* dst, size_t cap, const char* src) {
  memset(dst, 0, cap);
  if (src != NULL) strncpy(dst, src, cap - 1);
}

static trace_event base(uint8_t ev, uint32_t abi) {
  trace_event e;
  memset(&e, 0, sizeof(e));
  e.kind = RECORD_KIND_TRACE;
  e.cells = 3;
  e.ev = ev;
  e.abi_version = (uint8_t)abi;
  e.tid = thread_id();
  e.t_mono = clock_mono_ns();
  e.t_wall = clock_mono_to_wall_ns(e.t_mono);
  return e;
}

static void push(const trace_event* e) {
  uint64_t pos;
  if (!ring_reserve(&g_trace_ring, 3, 0, &pos)) {
    counter_add(CTR_TRACE_RING_FULL, 1);
    return;
  }
  ring_write(&g_trace_ring, pos, 0, e, 3);
  ring_publish(&g_trace_ring, pos);
}

void trace_init(uint32_t abi, void* context, uint64_t comm_id, const char* name, int nnodes,
                int nranks, int rank) {
  trace_event e = base(TRACE_EV_INIT, abi);
  e.context = (uint64_t)(uintptr_t)context;
  e.a = comm_id;
  e.nnodes = nnodes;
  e.nranks = nranks;
  e.rank = rank;
  /* The NCCL release the core learnt at this init (0 unknown), for replays to tell it again. */
  const comm_slot* c = context != NULL ? comm_table_lookup(&g_core.comms, context) : NULL;
  e.i0 = c != NULL ? c->nccl_version : 0;
  copy_string(e.comm_name, sizeof(e.comm_name), name);
  push(&e);
}

void trace_fini(void* context) {
  trace_event e = base(TRACE_EV_FINI, 0);
  e.context = (uint64_t)(uintptr_t)context;
  push(&e);
}

void trace_start_v4_like(uint32_t abi, uint64_t type, void* context, void* handle, void* parent,
                         int rank, const ncclProfilerEventDescr_v6_t* d) {
  trace_event e = base(TRACE_EV_START, abi);
  e.type = (uint32_t)type;
  e.context = (uint64_t)(uintptr_t)context;
  e.handle = (uint64_t)(uintptr_t)handle;
  e.parent = (uint64_t)(uintptr_t)parent;
  e.rank = rank;
  switch (type) {
    case ncclProfileColl:
      e.a = d->coll.seqNumber;
      copy_string(e.func, TRACE_STRING_BYTES, d->coll.func);
      e.count = d->coll.count;
      e.peer_or_root = d->coll.root;
      copy_string(e.datatype, TRACE_STRING_BYTES, d->coll.datatype);
      e.n_channels = d->coll.nChannels;
      e.n_warps = d->coll.nWarps;
      copy_string(e.algo, TRACE_STRING_BYTES, d->coll.algo);
      copy_string(e.proto, TRACE_STRING_BYTES, d->coll.proto);
      if (abi >= 5) e.parent_group = (uint64_t)(uintptr_t)d->coll.parentGroup;
      break;
    case ncclProfileP2p:
      copy_string(e.func, TRACE_STRING_BYTES, d->p2p.func);
      copy_string(e.datatype, TRACE_STRING_BYTES, d->p2p.datatype);
      e.count = d->p2p.count;
      e.peer_or_root = d->p2p.peer;
      e.n_channels = d->p2p.nChannels;
      if (abi >= 5) e.parent_group = (uint64_t)(uintptr_t)d->p2p.parentGroup;
      break;
    case ncclProfileKernelCh:
      e.channel_id = d->kernelCh.channelId;
      e.a = d->kernelCh.pTimer;
      break;
    case ncclProfileProxyOp:
      e.i0 = d->proxyOp.pid;
      e.channel_id = d->proxyOp.channelId;
      e.peer_or_root = d->proxyOp.peer;
      e.i1 = d->proxyOp.nSteps;
      e.i2 = d->proxyOp.chunkSize;
      e.i3 = d->proxyOp.isSend;
      break;
    case ncclProfileProxyStep:
      e.i0 = d->proxyStep.step;
      break;
    case ncclProfileGroupApi:
      e.graph_captured = ABI_BOOL(d->groupApi.graphCaptured);
      e.i0 = d->groupApi.groupDepth;
      break;
    case ncclProfileCollApi:
      copy_string(e.func, TRACE_STRING_BYTES, d->collApi.func);
      e.count = d->collApi.count;
      copy_string(e.datatype, TRACE_STRING_BYTES, d->collApi.datatype);
      e.peer_or_root = d->collApi.root;
      e.stream = (uint64_t)(uintptr_t)d->collApi.stream;
      e.graph_captured = ABI_BOOL(d->collApi.graphCaptured);
      break;
    case ncclProfileP2pApi:
      copy_string(e.func, TRACE_STRING_BYTES, d->p2pApi.func);
      e.count = d->p2pApi.count;
      copy_string(e.datatype, TRACE_STRING_BYTES, d->p2pApi.datatype);
      e.stream = (uint64_t)(uintptr_t)d->p2pApi.stream;
      e.graph_captured = ABI_BOOL(d->p2pApi.graphCaptured);
      break;
    case ncclProfileKernelLaunch:
      e.stream = (uint64_t)(uintptr_t)d->kernelLaunch.stream;
      break;
    case ncclProfileCeColl:
      e.a = d->ceColl.seqNumber;
      copy_string(e.func, TRACE_STRING_BYTES, d->ceColl.func);
      e.count = d->ceColl.count;
      e.peer_or_root = d->ceColl.root;
      copy_string(e.datatype, TRACE_STRING_BYTES, d->ceColl.datatype);
      e.stream = (uint64_t)(uintptr_t)d->ceColl.stream;
      break;
    default:
      break;
  }
  push(&e);
}

void trace_start_translated(uint32_t abi, uint64_t type, void* context, void* handle, void* parent,
                            int rank) {
  trace_event e = base(TRACE_EV_START, abi);
  e.type = (uint32_t)type;
  e.context = (uint64_t)(uintptr_t)context;
  e.handle = (uint64_t)(uintptr_t)handle;
  e.parent = (uint64_t)(uintptr_t)parent;
  e.rank = rank;
  push(&e);
}

void trace_stop_event(void* handle) {
  trace_event e = base(TRACE_EV_STOP, 0);
  e.handle = (uint64_t)(uintptr_t)handle;
  push(&e);
}

void trace_state(void* handle, int state, const void* args) {
  trace_event e = base(TRACE_EV_STATE, 0);
  e.handle = (uint64_t)(uintptr_t)handle;
  e.state = (uint32_t)state;
  /* Only states that carry an argument are read (others may pass uninitialised memory): the
   * ProxyStep states (8-12, 20: transSize), ProxyCtrl states (13-18: appendedProxyOps) and
   * KernelChStop (22: pTimer); every member sits at offset 0. */
  int has_arg = (state >= 8 && state <= 18) || state == 20 || state == ncclProfilerKernelChStop;
  if (args != NULL && has_arg) {
    if (state >= 13 && state <= 18) {
      int v;
      memcpy(&v, args, sizeof(v));
      e.a = (uint64_t)(int64_t)v;
    } else {
      memcpy(&e.a, args, sizeof(e.a));
    }
  }
  push(&e);
}
