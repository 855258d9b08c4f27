/* Table entries shared by several interface versions. */
#ifndef NCCL_INSPECTOR_ABI_COMMON_H
#define NCCL_INSPECTOR_ABI_COMMON_H

#include "nccl_profiler_abi.h"
#include "profiler_core.h"

ncclResult_t abi_stop_event(void* handle);
/* Interfaces 1-3, which the deferred mode leaves synchronous (defer_log.h). */
ncclResult_t abi_stop_event_sync(void* handle);
ncclResult_t abi_finalize_sync(void* context);
ncclResult_t abi_record_event_state(void* handle, ncclProfilerEventState_t state,
                                    ncclProfilerEventStateArgs_v5_t* args);
ncclResult_t abi_finalize(void* context);
/* recordEventState of v1-v3, whose states carry nothing the core uses. */
ncclResult_t abi_record_event_state_v3(void* handle, ncclProfilerEventState_t state,
                                       ncclProfilerEventStateArgs_v3_t* args);

/* init of v1-v3, which name no communicator (its id and rank come with each operation). */
/* `caller` is the init's return address: inside the NCCL that called (nccl_release.h). */
ncclResult_t abi_init_unnamed(void** context, int* activation_mask, uint32_t abi_version, const void* caller);
/* startEvent of v1-v3 once the descriptor is translated: the core's handle, recorded if on. */
void* abi_start_translated(uint32_t abi_version, void* context, const core_event* ev, uint64_t type,
                           void* parent, int rank);

#endif
