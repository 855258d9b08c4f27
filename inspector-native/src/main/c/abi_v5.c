/* Interface version 5 (NCCL 2.28, and 2.29/2.30 through their v5 adapter): the exported table
 * ncclProfiler_v5 and the translation of its descriptor into the core's event form. */
#include <string.h>

#include "abi_common.h"
#include "abi_translate.h"
#include "inspector_limits.h"
#include "trace_recorder.h"

static ncclResult_t v5_init(void** context, uint64_t comm_id, int* activation_mask,
                            const char* comm_name, int nnodes, int nranks, int rank,
                            ncclDebugLogger_t logfn) {
  if (context != NULL) {
    *context = core_comm_init(comm_id, activation_mask, comm_name, nnodes, nranks, rank, logfn, 5,
                              __builtin_return_address(0));
    if (trace_on()) trace_init(5, *context, comm_id, comm_name, nnodes, nranks, rank);
  }
  return ncclSuccess;
}

static ncclResult_t v5_start(void* context, void** handle, ncclProfilerEventDescr_v5_t* d) {
  if (handle == NULL) return ncclSuccess;
  *handle = NULL;
  if (d != NULL) {
    switch (d->type) {
      ABI_START_V4_CASES(context, d, handle)
      ABI_START_API_CASES(context, d, handle)
      default:
        break; /* Group, GroupApi (NCCL makes them as parents of the events asked for), proxy control
                * and network events: no handle, so no children */
    }
    if (trace_on()) {
      ncclProfilerEventDescr_v6_t copy; /* the v5/v6 members share offsets (nccl_profiler_abi.h) */
      memcpy(&copy, d, sizeof(*d));
      trace_start_v4_like(5, d->type, context, *handle, d->parentObj, d->rank, &copy);
    }
  }
  return ncclSuccess;
}

INSPECTOR_EXPORT ncclProfiler_v5_t ncclProfiler_v5 = {
    "nccl-inspector-jvm", v5_init, v5_start, abi_stop_event, abi_record_event_state, abi_finalize};
