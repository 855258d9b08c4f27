#include "abi_common.h"

#include "defer_log.h"
#include "profiler_core.h"
#include "proxy_breakdown.h"
#include "trace_recorder.h"

ncclResult_t abi_stop_event_sync(void* handle) {
  if (trace_on()) trace_stop_event(handle);
  core_stop(handle);
  return ncclSuccess;
}

ncclResult_t abi_stop_event(void* handle) {
  if (!defer_on()) return abi_stop_event_sync(handle);
  if (trace_on()) trace_stop_event(handle);
  defer_stop(handle);
  return ncclSuccess;
}

ncclResult_t abi_finalize_sync(void* context) {
  if (trace_on()) trace_fini(context);
  core_comm_finalize(context);
  return ncclSuccess;
}

ncclResult_t abi_record_event_state(void* handle, ncclProfilerEventState_t state,
                                    ncclProfilerEventStateArgs_v5_t* args) {
  if (trace_on()) trace_state(handle, (int)state, args);
  /* The kernel channel's GPU stop time and the proxy steps' sizes; NCCL passes uninitialised or
   * NULL arguments for other states (facts doc 2.6), so they are not read. */
  if (state == ncclProfilerKernelChStop && args != NULL) {
    (defer_on() ? defer_channel_gpu_stop : core_channel_gpu_stop)(handle, args->kernelCh.pTimer);
  } else if (proxy_step_state_used((int)state)) {
    /* Every step state is a transition the breakdown times; the size is read only where NCCL
     * sets it (SendWait, RecvFlushWait). */
    (defer_on() ? defer_proxy_step_state : proxy_step_state)(handle, (int)state,
                                                            args != NULL ? args->proxyStep.transSize : 0);
  }
  return ncclSuccess;
}

ncclResult_t abi_finalize(void* context) {
  if (!defer_on()) return abi_finalize_sync(context);
  if (trace_on()) trace_fini(context);
  defer_comm_finalize(context);
  return ncclSuccess;
}

/* No state of v1-v3 carries anything the core uses (v3 has no KernelChStop). */
ncclResult_t abi_record_event_state_v3(void* handle, ncclProfilerEventState_t state,
                                       ncclProfilerEventStateArgs_v3_t* args) {
  if (trace_on()) trace_state(handle, (int)state, args);
  return ncclSuccess;
}

ncclResult_t abi_init_unnamed(void** context, int* activation_mask, uint32_t abi_version, const void* caller) {
  if (context != NULL) {
    *context = core_comm_init(0, activation_mask, NULL, 0, 0, -1, NULL, abi_version, caller);
    if (trace_on()) trace_init(abi_version, *context, 0, NULL, 0, 0, -1);
  }
  return ncclSuccess;
}

void* abi_start_translated(uint32_t abi_version, void* context, const core_event* ev, uint64_t type,
                           void* parent, int rank) {
  void* handle = core_event_start(context, ev);
  if (trace_on()) trace_start_translated(abi_version, type, context, handle, parent, rank);
  return handle;
}
