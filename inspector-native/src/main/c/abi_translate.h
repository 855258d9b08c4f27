/* Translation of the descriptor members that interface versions 4, 5 and 6 share by name
 * (their offsets are pinned per version in nccl_profiler_abi.h). A macro, because the members
 * are the same while the descriptor types differ. */
#ifndef NCCL_INSPECTOR_ABI_TRANSLATE_H
#define NCCL_INSPECTOR_ABI_TRANSLATE_H

#include "profiler_core.h"
#include "proxy_breakdown.h"
#include "record_format.h"

/* The API events of v5 and v6, which carry the enqueuing thread's tag and whether the call was
 * captured into a CUDA graph, and the kernel launch, whose time bounds its kernels' starts. */
#define ABI_TRANSLATE_API_CASES(d, ev)                       \
  case ncclProfileKernelLaunch:                              \
    (ev).kind = CORE_EVENT_LAUNCH;                           \
    break;                                                   \
  case ncclProfileCollApi:                                   \
    (ev).kind = CORE_EVENT_API;                              \
    (ev).graph_captured = ABI_BOOL((d)->collApi.graphCaptured); \
    (ev).op.kind = RECORD_KIND_COLL;                         \
    (ev).op.func = (d)->collApi.func;                        \
    (ev).op.datatype = (d)->collApi.datatype;                \
    (ev).op.count = (d)->collApi.count;                      \
    (ev).op.peer_or_root = (d)->collApi.root;                \
    break;                                                   \
  case ncclProfileP2pApi:                                    \
    (ev).kind = CORE_EVENT_API;                              \
    (ev).graph_captured = ABI_BOOL((d)->p2pApi.graphCaptured);  \
    break;

/* Expands to the `case` labels of a switch on d->type for Coll, P2p and ProxyOp (KernelCh and
 * ProxyStep starts do not take the event form: ABI_START_V4_LIKE). */
#define ABI_TRANSLATE_V4_CASES(d, ev)                                                              \
  case ncclProfileColl:                                                                            \
    (ev).kind = CORE_EVENT_OP;                                                                     \
    (ev).op = core_op_event_v4(RECORD_KIND_COLL, (d)->coll.func, (d)->coll.datatype,               \
                               (d)->coll.algo, (d)->coll.proto, (d)->coll.seqNumber,               \
                               (d)->coll.count, (d)->coll.root, (d)->coll.nChannels,               \
                               (d)->coll.nWarps);                                                  \
    (ev).op.parent = (d)->parentObj;                                                               \
    break;                                                                                         \
  case ncclProfileP2p:                                                                             \
    (ev).kind = CORE_EVENT_OP;                                                                     \
    (ev).op = core_op_event_v4(RECORD_KIND_P2P, (d)->p2p.func, (d)->p2p.datatype, NULL, NULL, 0,   \
                               (d)->p2p.count, (d)->p2p.peer, (d)->p2p.nChannels, 0);              \
    (ev).op.parent = (d)->parentObj;                                                               \
    break;                                                                                         \
  case ncclProfileProxyOp:                                                                         \
    (ev).kind = CORE_EVENT_PROXY_OP;                                                               \
    (ev).parent = (d)->parentObj;                                                                  \
    (ev).channel_id = (d)->proxyOp.channelId;                                                      \
    (ev).peer = (d)->proxyOp.peer;                                                                 \
    (ev).n_steps = (d)->proxyOp.nSteps;                                                            \
    (ev).is_send = (d)->proxyOp.isSend != 0;                                                       \
    break;

/* A start of interface 4, 5 or 6 into the core. The two most frequent starts, a kernel channel (one
 * per channel of every operation) and a proxy step (one per network step), go straight to the core
 * with their few members; the others are translated into the event form first (`translate`: the
 * version's translation function). Building and reading the event form cost a Group start about
 * 10 ns on the benchmark's VM (BENCHMARKS.md, "starts that skip the event form"). */
#define ABI_START_V4_LIKE(context, d, translate, handle_out)                                        \
  do {                                                                                             \
    if ((d)->type == ncclProfileKernelCh) {                                                        \
      *(handle_out) = core_channel_start((d)->parentObj, (d)->kernelCh.channelId,                  \
                                         (d)->kernelCh.pTimer);                                    \
    } else if ((d)->type == ncclProfileProxyStep) {                                                \
      *(handle_out) = proxy_step_start((d)->parentObj, (d)->proxyStep.step);                       \
    } else {                                                                                       \
      core_event ev_ = translate(d);                                                               \
      *(handle_out) = core_event_start((context), &ev_);                                           \
    }                                                                                              \
  } while (0)

#endif
