/* Counters of everything the core did not turn into a normal record, by reason.
 *
 * "Drops" lost an event or a record; "notes" are outcomes worth knowing that lost nothing
 * (an operation completed without kernel events, an operation closed early by a flush...);
 * "quarantine" counts records delivered apart, marked with why their timing is not trusted.
 * Names and kinds are exported to Java, so adding a counter needs no Java change. */
#ifndef NCCL_INSPECTOR_EVENT_COUNTERS_H
#define NCCL_INSPECTOR_EVENT_COUNTERS_H

#include <stdatomic.h>
#include <stdint.h>

/* Every counter: X(id suffix, name, kind), drops first, then notes, then quarantine reasons in
 * the order of QUARANTINE_* (record_format.h). The enum, the names and the kinds all come from
 * this one list. */
#define INSPECTOR_COUNTERS(X) \
  X(RING_FULL, "ring_full", DROP) /* a completed record found the ring full */ \
  X(STALE_HANDLE, "stale_handle", DROP) /* an event for a handle whose operation was already closed or recycled */ \
  X(INVALID_HANDLE, "invalid_handle", DROP) /* a handle that the core never issued */ \
  X(UNKNOWN_CONTEXT, "unknown_context", DROP) /* startEvent with a context that is not a live communicator */ \
  X(BELOW_MIN_SIZE, "below_min_size", DROP) /* an operation smaller than the minimum message size */ \
  X(NO_GPU_TIMING, "no_gpu_timing", DROP) /* a record without kernel_gpu timing while GPU timing is required */ \
  X(OP_TABLE_FULL, "op_table_full", DROP) /* no in-flight slot could be taken or evicted */ \
  X(COMM_TABLE_FULL, "comm_table_full", DROP) /* a communicator arrived while the communicator table was full */ \
  X(UNKNOWN_DATATYPE, "unknown_datatype", DROP) /* an operation whose datatype size is unknown */ \
  X(TOO_MANY_CHANNELS, "too_many_channels", DROP) /* a kernel channel beyond INSPECTOR_MAX_CHANNELS for one operation */ \
  X(DUPLICATE_STOP, "duplicate_stop", DROP) /* a second stop for an operation or channel */ \
  X(CONTROL_RECORD_LOST, "control_record_lost", DROP) /* a communicator created/destroyed record found the ring full */ \
  X(EVENT_WHILE_INACTIVE, "event_while_inactive", DROP) /* an operation started while the inspector was paused or closed */ \
  X(TRACE_RING_FULL, "trace_ring_full", DROP) /* recording mode: a raw event found the trace ring full */ \
  X(API_LEDGER_FULL, "api_ledger_full", DROP) /* a collective call found no room in the API ledger: lost if NCCL gives it no operation event */ \
  X(KERNEL_RECORD_LOST, "kernel_record_lost", DROP) /* a CUPTI kernel record of an NCCL launch found the ring full */ \
  X(KERNEL_RECORDS_NO_BUFFER, "kernel_records_no_buffer", DROP) /* CUPTI asked for a buffer while all were in use: it drops activity records */ \
  X(DEFER_LOG_FULL, "deferred_log_full", DROP) /* deferred mode: a call found its thread's log full (defer_log.h) */ \
  X(DEFER_MAP_FULL, "deferred_map_full", DROP) /* deferred mode: a start whose handle found the handle map full (its later calls are lost) */ \
  X(DEFER_DISCARDED, "deferred_discarded", DROP) /* deferred mode: calls logged after a close, discarded at the next enable */ \
  X(DEFER_SHARED_LOG, "deferred_shared_log", NOTE) /* deferred mode: a thread that found every log taken logs through the shared one, under a lock */ \
  X(DEFER_TAKEN_OVER, "deferred_log_taken_over", NOTE) /* deferred mode: a thread took over the log of one that had exited before the consumer had read it to its end */ \
  X(DEFER_HELPED, "deferred_helped", NOTE) /* deferred mode: calls whose thread found its log full and replayed the logs itself first */ \
  X(UINT8_AS_UNKNOWN, "uint8_named_unknown", NOTE) /* datatype "Unknown" (NCCL 2.28's name for uint8) counted as 1 byte */ \
  X(COMPLETED_WITHOUT_KERNEL, "completed_without_kernel", NOTE) /* self send/recv or zero channels: complete at stop, CPU timing */ \
  X(EXPIRED_NO_KERNEL, "expired_no_kernel", NOTE) /* no kernel channel arrived within the in-flight expiry */ \
  X(EVICTED_TABLE_FULL, "evicted_table_full", NOTE) /* closed early to make room in the in-flight table */ \
  X(FLUSHED_AT_FINALIZE, "flushed_at_finalize", NOTE) /* still in flight when its communicator was finalized */ \
  X(FLUSHED_AT_CLOSE, "flushed_at_close", NOTE) /* still in flight when the inspector was closed */ \
  X(EXTRA_CHANNELS, "extra_channels", NOTE) /* more kernel channels started than the operation announced */ \
  X(NULL_OPERATION_NAME, "null_operation_name", NOTE) /* an operation without a name (func NULL): recorded as "Unknown" */ \
  X(QUIESCENT_CLOSE, "quiescent_close", NOTE) /* v3: completed once its started channels stopped and stayed quiet */ \
  X(PAUSED, "paused", NOTE) /* an operation started while recording was paused (not tracked) */ \
  X(SELF_P2P_CHANNEL_LAG, "self_p2p_channel_lag", NOTE) /* channels a send/recv to self put out of step (channel_desync.h) */ \
  X(DESYNC_DETECTED, "desync_detected", NOTE) /* channels found lagging that no send/recv to self predicted */ \
  X(DESYNC_CHANNELS_EXCLUDED, "desync_channels_excluded", NOTE) /* records timed by their in-step channels only */ \
  X(LATE_READ_CHANNELS, "late_read_channels", NOTE) /* channels left out: NCCL read their timestamps after their slot could be reused (channel_late_read.h) */ \
  X(NOT_PROFILED_BY_NCCL, "not_profiled_by_nccl", NOTE) /* collective calls NCCL gave no operation event: recorded untimed from the call */ \
  X(API_LINK_LATE, "api_link_late", NOTE) /* an operation event that came after its call was closed as not profiled */ \
  X(PROXY_OPS_UNTRACKED, "proxy_ops_untracked", NOTE) /* proxy operations beyond OP_PROXY_CELLS of one operation: not in its network breakdown */ \
  X(PROXY_INCOMPLETE, "proxy_incomplete", NOTE) /* operations closed with proxy operations still open (proxy_breakdown.h) */ \
  X(RECOVERED_CHANNELS, "recovered_channels", NOTE) /* channels given their own work item's timestamps from another operation's reading (channel_recovery.h) */ \
  X(RECOVERY_CAUSAL_PLACED, "recovery_causal_placed", NOTE) /* readings that failed the launch-bound guard, kept: every later item of their slot was launched after them (channel_recovery.c) */ \
  X(RECOVERY_ORDER_PLACED, "recovery_order_placed", NOTE) /* readings that failed the launch-bound guard, placed on their item by the order of the items already placed on their channel (channel_placed.h) */ \
  X(RECOVERY_WINDOW_PLACED, "recovery_window_placed", NOTE) /* readings that failed the launch-bound guard, placed on the one candidate whose launch window holds them (channel_placed.h) */ \
  X(RECOVERY_PARKED, "recovery_parked", NOTE) /* ambiguous readings parked to be tried again after later placements on their channel (channel_parked.h) */ \
  X(RECOVERY_PARKED_PLACED, "recovery_parked_placed", NOTE) /* parked readings placed on a retry */ \
  X(RECOVERY_FOUND_PLACED, "recovery_found_placed", NOTE) /* channels whose own reading was another item's, given their item's timestamps placed from another reading */ \
  X(RECOVERY_LOST_SLOT_REUSED, "recovery_lost_slot_reused", NOTE) /* readings not handed on: item base + 64 may have run when NCCL read the slot */ \
  X(RECOVERY_NEVER_DELIVERED, "recovery_never_delivered", NOTE) /* lagging channels whose item's reading never reached the operation before it closed */ \
  X(RECOVERY_CAUSAL_REJECT, "recovery_causal_reject", NOTE) /* recovered timestamps that failed a consistency check: withheld */ \
  X(RECOVERY_SELF_ITEM, "recovery_self_item", NOTE) /* readings of a send/recv to self's item: dropped (it has no time of its own) */ \
  X(RECOVERY_OWNER_GONE, "recovery_owner_gone", NOTE) /* readings whose owner had already closed (counted stale, never written) */ \
  X(RECOVERY_OFF, "recovery_off", NOTE) /* communicators where recovery was turned off for a reason other than the setting */ \
  X(KERNEL_RECORDS_JOINED, "kernel_records_joined", NOTE) /* CUPTI kernel records of NCCL launches handed to Java (kernel_records.h) */ \
  X(KERNEL_RECORDS_OTHER, "kernel_records_other", NOTE) /* CUPTI kernel records of other kernels, or whose launch id came too late: ignored */ \
  X(KERNEL_LAUNCH_ID_REFUSED, "kernel_launch_id_refused", NOTE) /* NCCL launches whose id CUPTI refused: their kernels cannot be named */ \
  X(GPU_TIMESTAMP_ZERO, "gpu_timestamp_zero", QUARANTINE) /* a GPU start or stop timestamp of 0 (interface v4+) */ \
  X(GPU_TIMESTAMP_REVERSED, "gpu_timestamp_reversed", QUARANTINE) /* a GPU stop at or before its start */ \
  X(GPU_TIMESTAMP_ABSURD, "gpu_timestamp_absurd", QUARANTINE) /* a channel longer than an hour */ \
  X(KERNEL_CHANNEL_DESYNC, "kernel_channel_desync", QUARANTINE) /* every channel carried another work item's timestamps: untimed */ \
  X(KERNEL_EVENTS_MISSING, "kernel_events_missing", QUARANTINE) /* announced channels never came although the communicator got them before: untimed */ \

typedef enum {
#define INSPECTOR_COUNTER_ENUM(id, name, kind) CTR_##id,
  INSPECTOR_COUNTERS(INSPECTOR_COUNTER_ENUM)
#undef INSPECTOR_COUNTER_ENUM
  CTR_COUNT
} counter_id;

/* Counters are striped: each thread adds into one of COUNTER_STRIPES copies (chosen round robin
 * at its first count), each in cache lines of its own, so NCCL's threads counting the same reason
 * (every filtered operation) do not bounce one cache line between them. A read sums the stripes. */
#define COUNTER_STRIPES 16

typedef struct counter_stripe {
  _Atomic uint64_t v[CTR_COUNT];
} __attribute__((aligned(64))) counter_stripe;

extern counter_stripe g_counter_stripes[COUNTER_STRIPES];
extern _Thread_local unsigned tls_counter_stripe; /* stripe + 1; 0 until the thread first counts */

unsigned counter_take_stripe(void);

/* Relaxed: counters are statistics, read by Java without ordering against other data. The add
 * stays atomic: past COUNTER_STRIPES threads, two threads share a stripe. */
static inline void counter_add(counter_id id, uint64_t n) {
  unsigned s = tls_counter_stripe;
  if (__builtin_expect(s == 0, 0)) s = counter_take_stripe();
  atomic_fetch_add_explicit(&g_counter_stripes[s - 1].v[id], n, memory_order_relaxed);
}

uint64_t counter_read(int id);
const char* counter_name(int id);
enum { COUNTER_DROP = 0, COUNTER_NOTE = 1, COUNTER_QUARANTINE = 2 };
#define COUNTER_KIND_DROP COUNTER_DROP
#define COUNTER_KIND_NOTE COUNTER_NOTE
#define COUNTER_KIND_QUARANTINE COUNTER_QUARANTINE
int counter_kind(int id);
void counters_reset(void);

#endif
