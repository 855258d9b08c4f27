#include "event_counters.h"

#include <stddef.h>

_Atomic uint64_t g_counters[CTR_COUNT];

static const char* const names[CTR_COUNT] = {
    "ring_full",          "stale_handle",        "invalid_handle",
    "unknown_context",    "below_min_size",      "no_gpu_timing",
    "op_table_full",      "comm_table_full",     "unknown_datatype",
    "too_many_channels",  "duplicate_stop",      "control_record_lost",
    "event_while_inactive", "trace_ring_full",     "uint8_named_unknown", "completed_without_kernel",
    "expired_no_kernel",  "evicted_table_full",  "flushed_at_finalize",
    "flushed_at_close",   "extra_channels",      "null_operation_name",
    "quiescent_close",    "paused",              "self_p2p_channel_lag", "desync_detected",
    "desync_channels_excluded", "gpu_timestamp_zero", "gpu_timestamp_reversed",
    "gpu_timestamp_absurd", "kernel_channel_desync"};

uint64_t counter_read(int id) {
  if (id < 0 || id >= CTR_COUNT) return 0;
  return atomic_load_explicit(&g_counters[id], memory_order_relaxed);
}

const char* counter_name(int id) { return (id < 0 || id >= CTR_COUNT) ? NULL : names[id]; }

int counter_kind(int id) {
  if (id < CTR_UINT8_AS_UNKNOWN) return COUNTER_DROP;
  if (id < CTR_GPU_TIMESTAMP_ZERO) return COUNTER_NOTE;
  return COUNTER_QUARANTINE;
}

void counters_reset(void) {
  for (int i = 0; i < CTR_COUNT; i++) atomic_store_explicit(&g_counters[i], 0, memory_order_relaxed);
}
