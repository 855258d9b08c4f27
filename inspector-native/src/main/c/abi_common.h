/* Table entries shared by several interface versions. */
#ifndef NCCL_INSPECTOR_ABI_COMMON_H
#define NCCL_INSPECTOR_ABI_COMMON_H

#include "nccl_profiler_abi.h"

ncclResult_t abi_stop_event(void* handle);
ncclResult_t abi_record_event_state(void* handle, ncclProfilerEventState_t state,
                                    ncclProfilerEventStateArgs_v5_t* args);
ncclResult_t abi_finalize(void* context);
/* recordEventState of v1-v3, whose states carry nothing the core uses. */
ncclResult_t abi_record_event_state_v3(void* handle, ncclProfilerEventState_t state,
                                       ncclProfilerEventStateArgs_v3_t* args);

#endif
