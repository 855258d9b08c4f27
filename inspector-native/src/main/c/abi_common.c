#include "abi_common.h"

#include "profiler_core.h"

ncclResult_t abi_stop_event(void* handle) {
  core_stop(handle);
  return ncclSuccess;
}

ncclResult_t abi_record_event_state(void* handle, ncclProfilerEventState_t state,
                                    ncclProfilerEventStateArgs_v5_t* args) {
  /* Only the kernel channel's GPU stop time matters; NCCL passes uninitialised or NULL
   * arguments for other states (facts doc 2.6), so they are not read. */
  if (state == ncclProfilerKernelChStop && args != NULL) {
    core_channel_gpu_stop(handle, args->kernelCh.pTimer);
  }
  return ncclSuccess;
}

ncclResult_t abi_finalize(void* context) {
  core_comm_finalize(context);
  return ncclSuccess;
}
