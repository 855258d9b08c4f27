/* How long an operation ran, and by which clock; and which of its kernel channels to believe.
 *
 * Execution time follows the reference Inspector: the longest single channel. Per channel the
 * GPU timestamps count when both are present, in order and plausible; otherwise the CPU times of
 * that channel's callbacks stand in (kernel_cpu); without usable channels the operation's own CPU
 * span is used (collective_cpu). Unlike the reference, channels are the ones that really arrived
 * (by their NCCL channel id), durations keep nanoseconds, and the GPU span and start are kept.
 *
 * Channels whose timestamps belong to other work are left out (channel_desync.h), whether lagging
 * by prediction (a send/recv to self before the operation started) or evidently: a GPU start
 * earlier than the operation's kernel launch plus the GPU clock's offset bound (gpu_clock_bound.h)
 * cannot be this operation's. The operation is then timed by its other channels and flagged; when
 * no channel is left it gets no time at all (timing source none, quarantine kernel_channel_desync):
 * on a lagging channel the callbacks themselves fire at once, so CPU times would be as meaningless.
 * A channel found early while other channels of the same operation started normally, and which
 * stopped before any of them started, is a lag nothing predicted: it is latched for the
 * communicator (a shift of either clock moves all channels of one kernel alike, so it cannot
 * produce that pattern). A channel whose timestamps NCCL read after 64 later operations had
 * started may carry a later work item's timestamps (channel_late_read.h): left out the same way.
 *
 * Outside verbose mode a channel's CPU times are only taken when its GPU timestamps are missing
 * or bad; a channel whose GPU start was fine but whose stop is not has no CPU start, and the
 * operation then falls back to collective_cpu (its own start to the channel's stop). */
#ifndef NCCL_INSPECTOR_OP_TIMING_H
#define NCCL_INSPECTOR_OP_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "op_table.h"

/* A GPU channel duration above this is treated as a bad timestamp, not a measurement. */
#define OP_TIMING_MAX_PLAUSIBLE_NS (3600ull * 1000000000ull)

/* Interface v4 reports no kernel launch: there a channel's start is judged against the operation's
 * own start event, which NCCL makes after the launch; a kernel may begin up to this much before
 * it. */
#define OP_TIMING_V4_LAUNCH_ALLOWANCE_NS 1000000ull

/* Whether a channel's GPU start and stop form a usable interval. */
static inline bool op_timing_gpu_interval_ok(uint64_t start, uint64_t stop) {
  return start != 0 && stop > start && stop - start <= OP_TIMING_MAX_PLAUSIBLE_NS;
}

/* CHANNEL_HANDED_ON: its reading is another operation's item, handed to that operation
 * (channel_recovery.h); its own item's timestamps come from a later operation. */
enum { CHANNEL_IN_STEP = 0, CHANNEL_LAG_PREDICTED = 1, CHANNEL_LAG_DETECTED = 2, CHANNEL_READ_LATE = 3,
       CHANNEL_HANDED_ON = 4 };

typedef struct op_timing {
  uint8_t source;        /* TIMING_* */
  uint8_t quarantine;    /* QUARANTINE_*: why GPU timestamps that should exist are unusable */
  uint8_t channels_desynced; /* channels left out as lagging or read late */
  uint8_t channels_read_late; /* of those, read too late to be its own (channel_late_read.h) */
  uint8_t channels_recovered; /* lagging channels timed by their own item's timestamps (channel_recovery.h) */
  uint8_t channels_never_delivered; /* lagging channels whose item's reading never reached it */
  uint8_t channels_causal_reject;   /* recovered timestamps withheld by a consistency check */
  uint8_t time_recovery;   /* TIME_* (channel_recovery.h) */
  uint8_t withheld_reason; /* WITHHELD_* of the first channel left out */
  uint64_t exec_ns;
  uint64_t gpu_start_ns; /* earliest valid channel GPU start, 0 if none */
  uint64_t gpu_span_ns;  /* latest valid GPU stop - earliest valid GPU start */
  uint64_t gpu_skew_ns;  /* latest valid GPU start - earliest valid GPU start */
  uint64_t latch_channels; /* NCCL channel ids found lagging without a prediction (to latch) */
  uint8_t desync[INSPECTOR_MAX_CHANNELS]; /* CHANNEL_* by channel index (order of arrival) */
} op_timing;

/* Computes the timing of an owned slot closed with `close_flags` (RECORD_FLAG_INCOMPLETE: closed
 * early). Copy-engine collectives are timed by their own start and stop (ce_cpu). A completed
 * operation of interface v4+ whose channels carry a zero, reversed or absurd GPU timestamp is timed
 * by the fallback and marked with the quarantine reason of the first such channel. An operation
 * expired or evicted without any of its announced channels, on a communicator whose operations got
 * kernel events before, gets no time (kernel_events_missing): NCCL stopped delivering them. */
void op_timing_compute(const op_slot* s, uint32_t channels_seen, uint32_t close_flags, op_timing* t);

#endif
