/* Interface version 5 (NCCL 2.28, and 2.29/2.30 through their v5 adapter): the exported table
 * ncclProfiler_v5 and the translation of its descriptor into the core's event form. */
#include "abi_common.h"
#include "inspector_limits.h"
#include "nccl_profiler_abi.h"
#include "profiler_core.h"
#include "record_format.h"

static core_event translate_v5(const ncclProfilerEventDescr_v5_t* d) {
  core_event ev = {0};
  switch (d->type) {
    case ncclProfileColl:
      ev.kind = CORE_EVENT_OP;
      ev.op = (core_op_event){RECORD_KIND_COLL, d->coll.func, d->coll.datatype, d->coll.algo,
                              d->coll.proto, d->coll.seqNumber, d->coll.count, d->coll.root,
                              d->coll.nChannels, d->coll.nWarps};
      break;
    case ncclProfileP2p:
      ev.kind = CORE_EVENT_OP;
      ev.op = (core_op_event){RECORD_KIND_P2P, d->p2p.func, d->p2p.datatype, NULL, NULL, 0,
                              d->p2p.count, d->p2p.peer, d->p2p.nChannels, 0};
      break;
    case ncclProfileKernelCh:
      ev.kind = CORE_EVENT_CHANNEL;
      ev.parent = d->parentObj;
      ev.channel_id = d->kernelCh.channelId;
      ev.gpu_start_ns = d->kernelCh.pTimer;
      break;
    default:
      break;
  }
  return ev;
}

static ncclResult_t v5_init(void** context, uint64_t comm_id, int* activation_mask,
                            const char* comm_name, int nnodes, int nranks, int rank,
                            ncclDebugLogger_t logfn) {
  if (context != NULL) {
    *context = core_comm_init(comm_id, activation_mask, comm_name, nnodes, nranks, rank, logfn, 5);
  }
  return ncclSuccess;
}

static ncclResult_t v5_start(void* context, void** handle, ncclProfilerEventDescr_v5_t* d) {
  if (handle == NULL) return ncclSuccess;
  *handle = NULL;
  if (d != NULL) {
    core_event ev = translate_v5(d);
    *handle = core_event_start(context, &ev);
  }
  return ncclSuccess;
}

INSPECTOR_EXPORT ncclProfiler_v5_t ncclProfiler_v5 = {
    "nccl-inspector-jvm", v5_init, v5_start, abi_stop_event, abi_record_event_state, abi_finalize};
