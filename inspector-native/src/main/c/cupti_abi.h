/* The part of CUPTI's activity interface that kernel_records.c uses, declared here so that the
 * core builds without the CUDA toolkit and loads CUPTI only when asked (dlopen at run time).
 *
 * Facts from CUPTI 13.0's cupti_activity.h / cupti_result.h (CUDA 13.0; the same in CUDA 12):
 * - activity kinds: CONCURRENT_KERNEL = 10 (kernel records that keep kernels concurrent),
 *   EXTERNAL_CORRELATION = 39;
 * - external correlation kinds: INVALID 0, UNKNOWN 1, OPENACC 2, CUSTOM0 3, CUSTOM1 4, CUSTOM2 5;
 * - every kernel record version from CUpti_ActivityKernel4 to CUpti_ActivityKernel10 has the
 *   same prefix: kind at 0, start at 16, end at 24, deviceId at 40, contextId at 44, streamId at
 *   48, correlationId at 92 (checked with offsetof against CUDA 13.0's headers, 2026-12-05);
 * - CUpti_ActivityExternalCorrelation: kind 0, externalKind 4, externalId 8 (u64),
 *   correlationId 16 (u32), 24 bytes;
 * - records are 8-byte aligned; cuptiActivityGetNextRecord walks a buffer and answers
 *   CUPTI_ERROR_MAX_LIMIT_REACHED (12) at its end;
 * - activity timestamps are nanoseconds on CUPTI's clock (cuptiGetTimestamp), by default the host
 *   wall clock (CLOCK_REALTIME on Linux, measured: 1.79e18 ns in December 2026);
 * - an external correlation record is written only with an API activity record: "when a CUPTI
 *   activity API record is created while within an external API region and
 *   CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION is enabled, the activity API record will be preceded
 *   by a CUpti_ActivityExternalCorrelation record" (cuptiActivityPushExternalCorrelationId). With
 *   API records off, kernels are recorded but nothing names their launch (seen on an H100,
 *   2026-12-05: 0 of 466 NCCL kernels joined). cuptiActivityEnableDriverApi(cbid, 1) turns API
 *   records on for single driver functions (CUPTI_ACTIVITY_KIND_DRIVER = 4 for all of them);
 *   NCCL launches with cuLaunchKernelEx, or cuLaunchKernel where the driver lacks it (enqueue.cc),
 *   callback ids in cupti_driver_cbid.h: cuLaunchKernel 307, cuLaunchKernel_ptsz 442,
 *   cuLaunchKernelEx 652, cuLaunchKernelEx_ptsz 653. */
#ifndef NCCL_INSPECTOR_CUPTI_ABI_H
#define NCCL_INSPECTOR_CUPTI_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef int cupti_result; /* CUptiResult: 0 is CUPTI_SUCCESS */
enum {
  CUPTI_OK = 0,
  CUPTI_MAX_LIMIT_REACHED = 12,
  CUPTI_MULTIPLE_SUBSCRIBERS = 39, /* CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED */
  CUPTI_KIND_DRIVER = 4, /* API records of every driver function */
  CUPTI_KIND_CONCURRENT_KERNEL = 10,
  CUPTI_KIND_EXTERNAL_CORRELATION = 39,
  CUPTI_EXTERNAL_KIND_CUSTOM2 = 5 /* PyTorch's profiler uses CUSTOM0/1; this tool takes CUSTOM2 */
};

/* The driver functions NCCL launches its kernels with (callback ids of cupti_driver_cbid.h). */
#define CUPTI_LAUNCH_CBIDS {307u, 442u, 652u, 653u}

/* Offsets of the fields read from a kernel record (any version 4..10). */
enum {
  CUPTI_KERNEL_START = 16,
  CUPTI_KERNEL_END = 24,
  CUPTI_KERNEL_DEVICE = 40,
  CUPTI_KERNEL_STREAM = 48,
  CUPTI_KERNEL_CORRELATION = 92
};

/* CUpti_ActivityExternalCorrelation. */
typedef struct cupti_external_correlation {
  uint32_t kind;
  uint32_t external_kind;
  uint64_t external_id;
  uint32_t correlation_id;
  uint32_t reserved;
} cupti_external_correlation;
_Static_assert(sizeof(cupti_external_correlation) == 24, "CUPTI's layout");

typedef void (*cupti_buffer_requested_fn)(uint8_t** buffer, size_t* size, size_t* max_records);
typedef void (*cupti_buffer_completed_fn)(void* context, uint32_t stream_id, uint8_t* buffer, size_t size,
                                          size_t valid_size);

/* The CUPTI functions used, as a table: dlopen fills it from libcupti; tests fill it with their own. */
typedef struct cupti_api {
  cupti_result (*register_callbacks)(cupti_buffer_requested_fn, cupti_buffer_completed_fn);
  cupti_result (*enable)(uint32_t kind);
  cupti_result (*disable)(uint32_t kind);
  cupti_result (*flush_all)(uint32_t flag);
  cupti_result (*get_next_record)(uint8_t* buffer, size_t valid_size, void** record);
  cupti_result (*push_external_id)(uint32_t kind, uint64_t id);
  cupti_result (*pop_external_id)(uint32_t kind, uint64_t* last_id);
  cupti_result (*result_string)(cupti_result result, const char** text);
  /* cuptiSubscribe / cuptiUnsubscribe (callback API), optional: the probe for another CUPTI tool.
   * CUPTI takes one subscriber per process, and the tools that read activity records (Nsight
   * Systems' injection, PyTorch's Kineto) subscribe. */
  cupti_result (*subscribe)(void** subscriber, void* callback, void* user_data);
  cupti_result (*unsubscribe)(void* subscriber);
  /* cuptiActivityEnableDriverApi (CUPTI of CUDA 12.x and later), optional: API records for the launch
   * functions only. Without it, API records of every driver function (CUPTI_KIND_DRIVER). */
  cupti_result (*enable_driver_api)(uint32_t cbid, uint8_t enable);
} cupti_api;

#endif
