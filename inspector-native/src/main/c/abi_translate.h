/* The startEvent of interface versions 4, 5 and 6, whose descriptors share their members by name
 * (their offsets are pinned per version in nccl_profiler_abi.h): each start type goes straight to
 * the core's entry point with the members it reads. Macros, because the members are the same while
 * the descriptor types differ.
 *
 * No intermediate event form: building one (a struct of some 150 bytes, zeroed, then read back)
 * cost a start about 10 ns on the benchmark's VM, as much as the whole of what a Group start now
 * costs (BENCHMARKS.md, "starts without the event form"). */
#ifndef NCCL_INSPECTOR_ABI_TRANSLATE_H
#define NCCL_INSPECTOR_ABI_TRANSLATE_H

#include "defer_log.h"
#include "profiler_core.h"
#include "proxy_breakdown.h"
#include "record_format.h"

/* An operation's start, in whichever mode the callbacks are (defer_log.h). */
static inline void* abi_op_start(void* context, const core_op_event* ev) {
  return defer_on() ? defer_op_start(context, ev) : core_op_start(context, ev);
}

/* `case` labels of a switch on d->type for Coll, P2p, KernelCh, ProxyOp and ProxyStep (v4+),
 * each setting *handle_out. */
#define ABI_START_V4_CASES(context, d, handle_out)                                                 \
  case ncclProfileColl: {                                                                          \
    core_op_event op_ = core_op_event_v4(RECORD_KIND_COLL, (d)->coll.func, (d)->coll.datatype,     \
                                         (d)->coll.algo, (d)->coll.proto, (d)->coll.seqNumber,     \
                                         (d)->coll.count, (d)->coll.root, (d)->coll.nChannels,     \
                                         (d)->coll.nWarps);                                        \
    op_.parent = (d)->parentObj;                                                                   \
    *(handle_out) = abi_op_start((context), &op_);                                                 \
    break;                                                                                         \
  }                                                                                                \
  case ncclProfileP2p: {                                                                           \
    core_op_event op_ = core_op_event_v4(RECORD_KIND_P2P, (d)->p2p.func, (d)->p2p.datatype, NULL,  \
                                         NULL, 0, (d)->p2p.count, (d)->p2p.peer,                   \
                                         (d)->p2p.nChannels, 0);                                   \
    op_.parent = (d)->parentObj;                                                                   \
    *(handle_out) = abi_op_start((context), &op_);                                                 \
    break;                                                                                         \
  }                                                                                                \
  case ncclProfileKernelCh:                                                                        \
    *(handle_out) = (defer_on() ? defer_channel_start : core_channel_start)(                       \
        (d)->parentObj, (d)->kernelCh.channelId, (d)->kernelCh.pTimer);                            \
    break;                                                                                         \
  case ncclProfileProxyOp:                                                                         \
    *(handle_out) = (defer_on() ? defer_proxy_op_start : proxy_op_start)(                          \
        (d)->parentObj, (d)->proxyOp.channelId, (d)->proxyOp.peer, (d)->proxyOp.nSteps,            \
        (d)->proxyOp.isSend != 0);                                                                 \
    break;                                                                                         \
  case ncclProfileProxyStep:                                                                       \
    *(handle_out) = (defer_on() ? defer_proxy_step_start : proxy_step_start)(                      \
        (d)->parentObj, (d)->proxyStep.step);                                                      \
    break;

/* `case` labels for the API events of v5 and v6, which carry the enqueuing thread's tag and
 * whether the call was captured into a CUDA graph, and for the kernel launch, whose time bounds its
 * kernels' starts. */
#define ABI_START_API_CASES(context, d, handle_out)                                                \
  case ncclProfileKernelLaunch:                                                                    \
    *(handle_out) = defer_on() ? defer_launch_start(context) : core_launch_start(context);         \
    break;                                                                                         \
  case ncclProfileCollApi:                                                                         \
    *(handle_out) = (defer_on() ? defer_coll_api_start : core_coll_api_start)(                     \
        (context), (d)->collApi.func, (d)->collApi.datatype, (d)->collApi.count,                   \
        (d)->collApi.root, ABI_BOOL((d)->collApi.graphCaptured));                                  \
    break;                                                                                         \
  case ncclProfileP2pApi:                                                                          \
    *(handle_out) = core_p2p_api_start(ABI_BOOL((d)->p2pApi.graphCaptured));                       \
    break;

#endif
