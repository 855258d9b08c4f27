/* Table entries whose signature is the same in interface versions 4, 5 and 6. */
#ifndef NCCL_INSPECTOR_ABI_COMMON_H
#define NCCL_INSPECTOR_ABI_COMMON_H

#include "nccl_profiler_abi.h"

ncclResult_t abi_stop_event(void* handle);
ncclResult_t abi_record_event_state(void* handle, ncclProfilerEventState_t state,
                                    ncclProfilerEventStateArgs_v5_t* args);
ncclResult_t abi_finalize(void* context);

#endif
