/* Interface version 3 (NCCL 2.26): strings; kernel channels without timestamps; init carries no
 * communicator, so each Coll/P2p descriptor names its communicator (commHash) and rank. The
 * channel count it gives is NCCL's maximum, not the channels that will run (facts doc 2.7), so
 * an operation completes once its started channels have stopped and stayed quiet. */
#include "abi_common.h"
#include "abi_translate.h"
#include "inspector_limits.h"

static core_event translate_v3(const ncclProfilerEventDescr_v3_t* d) {
  core_event ev = {0};
  switch (d->type) {
    case ncclProfileColl:
      ev.kind = CORE_EVENT_OP;
      ev.op = core_op_event_v4(RECORD_KIND_COLL, d->coll.func, d->coll.datatype, d->coll.algo,
                               d->coll.proto, d->coll.seqNumber, d->coll.count, d->coll.root,
                               d->coll.nMaxChannels, d->coll.nWarps);
      ev.op.channel_mode = CHANNELS_UNCOUNTED;
      ev.op.comm_hash = d->coll.commHash;
      ev.op.rank = d->rank;
      break;
    case ncclProfileP2p:
      ev.kind = CORE_EVENT_OP;
      ev.op = core_op_event_v4(RECORD_KIND_P2P, d->p2p.func, d->p2p.datatype, NULL, NULL, 0,
                               d->p2p.count, d->p2p.peer, 0, 0);
      ev.op.channel_mode = CHANNELS_UNCOUNTED;
      ev.op.comm_hash = d->p2p.commHash;
      ev.op.rank = d->rank;
      break;
    case ncclProfileKernelCh:
      ev.kind = CORE_EVENT_CHANNEL;
      ev.parent = d->parentObj;
      ev.channel_id = d->kernelCh.channelId;
      ev.gpu_start_ns = 0;
      break;
    default:
      break;
  }
  return ev;
}

static ncclResult_t v3_init(void** context, int* activation_mask) {
  return abi_init_unnamed(context, activation_mask, 3, __builtin_return_address(0));
}

static ncclResult_t v3_start(void* context, void** handle, ncclProfilerEventDescr_v3_t* d) {
  if (handle == NULL) return ncclSuccess;
  *handle = NULL;
  if (d != NULL) {
    core_event ev = translate_v3(d);
    *handle = abi_start_translated(3, context, &ev, d->type, d->parentObj, d->rank);
  }
  return ncclSuccess;
}

INSPECTOR_EXPORT ncclProfiler_v3_t ncclProfiler_v3 = {
    "nccl-inspector-jvm", v3_init, v3_start, abi_stop_event_sync, abi_record_event_state_v3, abi_finalize_sync};
