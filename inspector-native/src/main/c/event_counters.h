/* Counters of everything the core did not turn into a normal record, by reason.
 *
 * "Drops" lost an event or a record; "notes" are outcomes worth knowing that lost nothing
 * (an operation completed without kernel events, an operation closed early by a flush...);
 * "quarantine" counts records delivered apart, marked with why their timing is not trusted.
 * Names and kinds are exported to Java by index, so adding a counter needs no Java change. */
#ifndef NCCL_INSPECTOR_EVENT_COUNTERS_H
#define NCCL_INSPECTOR_EVENT_COUNTERS_H

#include <stdatomic.h>
#include <stdint.h>

typedef enum {
  /* drops */
  CTR_RING_FULL = 0,          /* a completed record found the ring full */
  CTR_STALE_HANDLE,           /* an event for a handle whose operation was already closed or recycled */
  CTR_INVALID_HANDLE,         /* a handle that the core never issued */
  CTR_UNKNOWN_CONTEXT,        /* startEvent with a context that is not a live communicator */
  CTR_BELOW_MIN_SIZE,         /* an operation smaller than the minimum message size */
  CTR_NO_GPU_TIMING,          /* a record without kernel_gpu timing while GPU timing is required */
  CTR_OP_TABLE_FULL,          /* no in-flight slot could be taken or evicted */
  CTR_COMM_TABLE_FULL,        /* a communicator arrived while the communicator table was full */
  CTR_UNKNOWN_DATATYPE,       /* an operation whose datatype size is unknown */
  CTR_TOO_MANY_CHANNELS,      /* a kernel channel beyond INSPECTOR_MAX_CHANNELS for one operation */
  CTR_DUPLICATE_STOP,         /* a second stop for an operation or channel */
  CTR_CONTROL_RECORD_LOST,    /* a communicator created/destroyed record found the ring full */
  CTR_EVENT_WHILE_INACTIVE,   /* an operation started while the inspector was paused or closed */
  CTR_TRACE_RING_FULL,        /* recording mode: a raw event found the trace ring full */
  /* notes */
  CTR_UINT8_AS_UNKNOWN,       /* datatype "Unknown" (NCCL 2.28's name for uint8) counted as 1 byte */
  CTR_COMPLETED_WITHOUT_KERNEL, /* self send/recv or zero channels: complete at stop, CPU timing */
  CTR_EXPIRED_NO_KERNEL,      /* no kernel channel arrived within the in-flight expiry */
  CTR_EVICTED_TABLE_FULL,     /* closed early to make room in the in-flight table */
  CTR_FLUSHED_AT_FINALIZE,    /* still in flight when its communicator was finalized */
  CTR_FLUSHED_AT_CLOSE,       /* still in flight when the inspector was closed */
  CTR_EXTRA_CHANNELS,         /* more kernel channels started than the operation announced */
  CTR_NULL_OPERATION_NAME,    /* an operation without a name (func NULL): recorded as "Unknown" */
  CTR_QUIESCENT_CLOSE,        /* v3: completed once its started channels stopped and stayed quiet */
  CTR_PAUSED,                 /* an operation started while recording was paused (not tracked) */
  CTR_SELF_P2P_CHANNEL_LAG,   /* channels a send/recv to self put out of step (channel_desync.h) */
  CTR_DESYNC_DETECTED,        /* channels found lagging that no send/recv to self predicted */
  CTR_DESYNC_CHANNELS_EXCLUDED, /* records timed by their in-step channels only */
  /* quarantine: records kept apart because a channel's GPU timestamps are not usable */
  CTR_GPU_TIMESTAMP_ZERO,     /* a GPU start or stop timestamp of 0 (interface v4+) */
  CTR_GPU_TIMESTAMP_REVERSED, /* a GPU stop at or before its start */
  CTR_GPU_TIMESTAMP_ABSURD,   /* a channel longer than an hour */
  CTR_KERNEL_CHANNEL_DESYNC,  /* every channel carried another work item's timestamps: untimed */
  CTR_COUNT
} counter_id;

extern _Atomic uint64_t g_counters[CTR_COUNT];

/* Relaxed: counters are statistics, read by Java without ordering against other data. */
static inline void counter_add(counter_id id, uint64_t n) {
  atomic_fetch_add_explicit(&g_counters[id], n, memory_order_relaxed);
}

uint64_t counter_read(int id);
const char* counter_name(int id);
enum { COUNTER_DROP = 0, COUNTER_NOTE = 1, COUNTER_QUARANTINE = 2 };
int counter_kind(int id);
void counters_reset(void);

#endif
