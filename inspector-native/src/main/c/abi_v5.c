/* Interface version 5 (NCCL 2.28, and 2.29/2.30 through their v5 adapter): the exported table
 * ncclProfiler_v5 and the translation of its descriptor into the core's event form. */
#include <string.h>

#include "abi_common.h"
#include "abi_translate.h"
#include "inspector_limits.h"
#include "trace_recorder.h"

static core_event translate_v5(const ncclProfilerEventDescr_v5_t* d) {
  core_event ev = {0};
  switch (d->type) {
    ABI_TRANSLATE_V4_CASES(d, ev)
    ABI_TRANSLATE_API_CASES(d, ev)
    default:
      break;
  }
  return ev;
}

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
  if (d != NULL && !abi_start_ignored(d->type)) {
    ABI_START_V4_LIKE(context, d, translate_v5, handle);
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
