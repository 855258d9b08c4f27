/* Interface version 1 (NCCL 2.23): like v2, but operation, datatype, algorithm and protocol are
 * NCCL's enum values, which are turned back into NCCL's own names here. */
#include "abi_common.h"
#include "abi_translate.h"
#include "inspector_limits.h"

/* ncclFunc_t, ncclDataType_t, NCCL_ALGO_*, NCCL_PROTO_* values of NCCL 2.23. */
static const char* const v1_funcs[] = {"Broadcast", "Reduce", "AllGather", "ReduceScatter",
                                       "AllReduce", "SendRecv", "Send", "Recv"};
static const char* const v1_datatypes[] = {"ncclInt8", "ncclUint8", "ncclInt32", "ncclUint32",
                                           "ncclInt64", "ncclUint64", "ncclFloat16", "ncclFloat32",
                                           "ncclFloat64", "ncclBfloat16", "ncclFloat8e4m3",
                                           "ncclFloat8e5m2"};
static const char* const v1_algos[] = {"TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN",
                                       "NVLS", "NVLS_TREE", "PAT"};
static const char* const v1_protos[] = {"LL", "LL128", "SIMPLE"};

#define V1_NAME(table, id) \
  ((id) < sizeof(table) / sizeof((table)[0]) ? (table)[(id)] : NULL)

static core_event translate_v1(const ncclProfilerEventDescr_v1_t* d) {
  core_event ev = {0};
  switch (d->type) {
    case ncclProfileColl:
      ev.kind = CORE_EVENT_OP;
      ev.op = core_op_event_v4(RECORD_KIND_COLL, V1_NAME(v1_funcs, d->coll.func),
                               V1_NAME(v1_datatypes, d->coll.datatype), V1_NAME(v1_algos, d->coll.algo),
                               V1_NAME(v1_protos, d->coll.proto), d->coll.seqNumber, d->coll.count,
                               d->coll.root, d->coll.nMaxChannels, d->coll.nWarps);
      ev.op.channel_mode = CHANNELS_NONE;
      ev.op.comm_hash = d->coll.commHash;
      ev.op.rank = d->rank;
      break;
    case ncclProfileP2p:
      ev.kind = CORE_EVENT_OP;
      ev.op = core_op_event_v4(RECORD_KIND_P2P, V1_NAME(v1_funcs, d->p2p.func),
                               V1_NAME(v1_datatypes, d->p2p.datatype), NULL, NULL, 0, d->p2p.count,
                               d->p2p.peer, 0, 0);
      ev.op.channel_mode = CHANNELS_NONE;
      ev.op.comm_hash = d->p2p.commHash;
      ev.op.rank = d->rank;
      break;
    default:
      break;
  }
  return ev;
}

static ncclResult_t v1_init(void** context, int* activation_mask) {
  return abi_init_unnamed(context, activation_mask, 1, __builtin_return_address(0));
}

static ncclResult_t v1_start(void* context, void** handle, ncclProfilerEventDescr_v1_t* d) {
  if (handle == NULL) return ncclSuccess;
  *handle = NULL;
  if (d != NULL) {
    core_event ev = translate_v1(d);
    *handle = abi_start_translated(1, context, &ev, d->type, d->parentObj, d->rank);
  }
  return ncclSuccess;
}

INSPECTOR_EXPORT ncclProfiler_v1_t ncclProfiler_v1 = {
    "nccl-inspector-jvm", v1_init, v1_start, abi_stop_event_sync, abi_record_event_state_v3, abi_finalize_sync};
