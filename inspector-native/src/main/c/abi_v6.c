/* Interface version 6 (NCCL 2.29, 2.30): v5 plus copy-engine (CE) collectives. A CeColl is
 * recorded as a collective with its own timing source (ce_cpu: NCCL gives no GPU timestamps for
 * copy-engine work); its CeSync and CeBatch children carry nothing the record needs. */
#include <string.h>

#include "abi_common.h"
#include "abi_translate.h"
#include "inspector_limits.h"
#include "trace_recorder.h"

static ncclResult_t v6_init(void** context, uint64_t comm_id, int* activation_mask,
                            const char* comm_name, int nnodes, int nranks, int rank,
                            ncclDebugLogger_t logfn) {
  if (context != NULL) {
    *context = core_comm_init(comm_id, activation_mask, comm_name, nnodes, nranks, rank, logfn, 6,
                              __builtin_return_address(0));
    if (trace_on()) trace_init(6, *context, comm_id, comm_name, nnodes, nranks, rank);
  }
  return ncclSuccess;
}

static ncclResult_t v6_start(void* context, void** handle, ncclProfilerEventDescr_v6_t* d) {
  if (handle == NULL) return ncclSuccess;
  *handle = NULL;
  if (d != NULL) {
    switch (d->type) {
      ABI_START_V4_CASES(context, d, handle)
      ABI_START_API_CASES(context, d, handle)
      case ncclProfileCeColl: {
        core_op_event op = core_op_event_v4(RECORD_KIND_COLL, d->ceColl.func, d->ceColl.datatype, "CE", NULL,
                                            d->ceColl.seqNumber, d->ceColl.count, d->ceColl.root, 0, 0);
        op.channel_mode = CHANNELS_NONE;
        op.copy_engine = 1;
        op.parent = d->parentObj; /* its CollApi call: the thread's tag and the call's number */
        *handle = abi_op_start(context, &op);
        break;
      }
      default:
        break; /* Group, GroupApi (NCCL makes them as parents of the events asked for), proxy control
                * and network events: no handle, so no children */
    }
    if (trace_on()) {
      ncclProfilerEventDescr_v6_t copy; /* the v5/v6 members share offsets (nccl_profiler_abi.h) */
      memcpy(&copy, d, sizeof(*d));
      trace_start_v4_like(6, d->type, context, *handle, d->parentObj, d->rank, &copy);
    }
  }
  return ncclSuccess;
}

INSPECTOR_EXPORT ncclProfiler_v6_t ncclProfiler_v6 = {
    "nccl-inspector-jvm", v6_init, v6_start, abi_stop_event, abi_record_event_state, abi_finalize};
