/* Interface version 2 (NCCL 2.24, 2.25): v3's strings plus trafficBytes, no kernel channels: an
 * operation completes at its stop with CPU timing of its enqueue (collective_cpu, flagged
 * no_kernel_events). */
#include "abi_common.h"
#include "abi_translate.h"
#include "inspector_limits.h"

static core_event translate_v2(const ncclProfilerEventDescr_v2_t* d) {
  core_event ev = {0};
  switch (d->type) {
    case ncclProfileColl:
      ev.kind = CORE_EVENT_OP;
      ev.op = core_op_event_v4(RECORD_KIND_COLL, d->coll.func, d->coll.datatype, d->coll.algo,
                               d->coll.proto, d->coll.seqNumber, d->coll.count, d->coll.root,
                               d->coll.nMaxChannels, d->coll.nWarps);
      ev.op.channel_mode = CHANNELS_NONE;
      ev.op.comm_hash = d->coll.commHash;
      ev.op.rank = d->rank;
      break;
    case ncclProfileP2p:
      ev.kind = CORE_EVENT_OP;
      ev.op = core_op_event_v4(RECORD_KIND_P2P, d->p2p.func, d->p2p.datatype, NULL, NULL, 0,
                               d->p2p.count, d->p2p.peer, 0, 0);
      ev.op.channel_mode = CHANNELS_NONE;
      ev.op.comm_hash = d->p2p.commHash;
      ev.op.rank = d->rank;
      break;
    default:
      break;
  }
  return ev;
}

static ncclResult_t v2_init(void** context, int* activation_mask) {
  return abi_init_unnamed(context, activation_mask, 2, __builtin_return_address(0));
}

static ncclResult_t v2_start(void* context, void** handle, ncclProfilerEventDescr_v2_t* d) {
  if (handle == NULL) return ncclSuccess;
  *handle = NULL;
  if (d != NULL) {
    core_event ev = translate_v2(d);
    *handle = abi_start_translated(2, context, &ev, d->type, d->parentObj, d->rank);
  }
  return ncclSuccess;
}

INSPECTOR_EXPORT ncclProfiler_v2_t ncclProfiler_v2 = {
    "nccl-inspector-jvm", v2_init, v2_start, abi_stop_event_sync, abi_record_event_state_v3, abi_finalize_sync};
