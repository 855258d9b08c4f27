/* Interface version 4 (NCCL 2.27): the exported table ncclProfiler_v4. Its descriptor has an
 * 8-bit type and no API events; init takes the communicator hash after the name. Stop, record and
 * finalize have the same signature as in v5 (abi_common.c). */
#include <string.h>

#include "abi_common.h"
#include "abi_translate.h"
#include "inspector_limits.h"
#include "trace_recorder.h"

static ncclResult_t v4_init(void** context, int* activation_mask, const char* comm_name,
                            uint64_t comm_hash, int nnodes, int nranks, int rank,
                            ncclDebugLogger_t logfn) {
  if (context != NULL) {
    *context = core_comm_init(comm_hash, activation_mask, comm_name, nnodes, nranks, rank, logfn, 4,
                              __builtin_return_address(0));
    if (trace_on()) trace_init(4, *context, comm_hash, comm_name, nnodes, nranks, rank);
  }
  return ncclSuccess;
}

static ncclResult_t v4_start(void* context, void** handle, ncclProfilerEventDescr_v4_t* d) {
  if (handle == NULL) return ncclSuccess;
  *handle = NULL;
  if (d != NULL) {
    switch (d->type) {
      ABI_START_V4_CASES(context, d, handle)
      default:
        break; /* Group, GroupApi (NCCL makes them as parents of the events asked for), proxy control
                * and network events: no handle, so no children */
    }
    if (trace_on()) {
      ncclProfilerEventDescr_v6_t copy; /* v4 members sit at the v5 offsets, type aside */
      memset(&copy, 0, sizeof(copy));
      memcpy(&copy, d, sizeof(*d));
      trace_start_v4_like(4, d->type, context, *handle, d->parentObj, d->rank, &copy);
    }
  }
  return ncclSuccess;
}

INSPECTOR_EXPORT ncclProfiler_v4_t ncclProfiler_v4 = {
    "nccl-inspector-jvm", v4_init, v4_start, abi_stop_event, abi_record_event_state, abi_finalize};
