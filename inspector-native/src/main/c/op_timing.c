#include "op_timing.h"

#include <string.h>

#include "channel_recovery.h"
#include "clock.h"
#include "gpu_clock_bound.h"
#include "names.h"
#include "profiler_core.h"
#include "record_format.h"
#include "zero_fill.h"

static uint8_t quarantine_reason(uint64_t start, uint64_t stop) {
  if (start == 0 || stop == 0) return QUARANTINE_GPU_TIMESTAMP_ZERO;
  if (stop <= start) return QUARANTINE_GPU_TIMESTAMP_REVERSED;
  return QUARANTINE_GPU_TIMESTAMP_ABSURD;
}

/* The earliest wall time (GPU clock) at which a kernel channel of this operation can have started,
 * or false when it cannot be known: no launch time, a CUDA-graph replay (launched long before its
 * operation's events), or no recent observation of the GPU clock. */
static bool earliest_genuine_start(const op_slot* s, int64_t* earliest) {
  if (s->abi_version < 4 || (s->static_flags & RECORD_FLAG_GRAPH_LAUNCHED)) return false;
  int64_t bound;
  /* The operation's start is "now" for the window of observations: no clock read here. */
  if (!gpu_clock_offset_bound(s->clock_device, s->start_ns, &bound)) return false;
  int64_t launch;
  if (s->launch_ns != 0) {
    launch = (int64_t)clock_mono_to_wall_ns(s->launch_ns);
  } else if (s->abi_version == 4) {
    launch = (int64_t)clock_mono_to_wall_ns(s->start_ns) - (int64_t)OP_TIMING_V4_LAUNCH_ALLOWANCE_NS;
  } else {
    return false;
  }
  *earliest = launch + bound;
  return true;
}

void op_timing_compute(const op_slot* s, uint32_t channels_seen, uint32_t close_flags, op_timing* t) {
  ZERO_FILL(t);
  bool complete = (close_flags & RECORD_FLAG_INCOMPLETE) == 0;
  if (channels_seen == 0 && s->comm_got_kernel_events && s->expected_channels != 0 &&
      s->channel_mode == CHANNELS_COUNTED && (close_flags & (RECORD_FLAG_EXPIRED | RECORD_FLAG_EVICTED))) {
    /* Announced channels never came within the in-flight expiry (or before the table needed the
     * room), where this communicator's operations got them before: NCCL stopped delivering kernel
     * events (NCCL 2.29-2.30 after a Broadcast on their AllGatherV path). Its CPU span is only its
     * enqueue: no time, and set apart as evidence. An operation still waiting at finalize or close
     * is not evidence of that (its channels may simply not have come yet). */
    t->source = TIMING_NONE;
    t->quarantine = QUARANTINE_KERNEL_EVENTS_MISSING;
    return;
  }
  t->source = TIMING_COLLECTIVE_CPU;
  if (s->static_flags & RECORD_FLAG_COPY_ENGINE) {
    t->source = TIMING_CE_CPU;
    t->exec_ns = s->stop_ns > s->start_ns ? s->stop_ns - s->start_ns : 0;
    return;
  }
  if (channels_seen > INSPECTOR_MAX_CHANNELS) channels_seen = INSPECTOR_MAX_CHANNELS;
  bool gpu_timestamps_expected = s->abi_version >= 4;
  int64_t earliest = 0;
  bool judge_early = gpu_timestamps_expected && complete && earliest_genuine_start(s, &earliest);

  /* A numbered operation (channel_recovery.h) knows exactly which channels lag: those waiting for
   * their own item's timestamps from a later operation. Otherwise the prediction from sends/receives
   * to self (channel_desync.h). Relaxed: the slot is owned by the caller. */
  bool numbered = atomic_load_explicit(&((op_slot*)s)->recov_state, memory_order_relaxed) == RECOV_OP_NUMBERED;
  /* In-step channels given their item's timestamps from the placed ring (recov_found) are timed
   * like waiting channels that got theirs. */
  uint64_t waiting =
      numbered ? s->recov_wait | atomic_load_explicit(&((op_slot*)s)->recov_found, memory_order_relaxed) : 0;

  /* First pass: which channels lag. */
  uint64_t early_unpredicted = 0; /* by channel index */
  uint32_t in_step = 0, handed_on = 0;
  uint64_t min_in_step_start = UINT64_MAX;
  for (uint32_t i = 0; i < channels_seen; i++) {
    const channel_slot* ch = &s->ch[i];
    if (numbered && ch->channel_id < 64 && ((waiting >> ch->channel_id) & 1)) {
      t->desync[i] = CHANNEL_HANDED_ON;
      handed_on++;
      continue;
    }
    uint64_t lagging = numbered ? s->recov_lagging : s->lag_mask;
    if (ch->channel_id < 64 && ((lagging >> ch->channel_id) & 1)) {
      t->desync[i] = CHANNEL_LAG_PREDICTED;
      /* Numbered: a P2P's lagging channel, or a collective's whose lag is 64 items or more (no
       * reading of its own item can pass the launch-bound guard, channel_recovery.c). */
      if (!t->withheld_reason) {
        t->withheld_reason = !numbered ? WITHHELD_LAG_PREDICTED
                             : s->kind == RECORD_KIND_P2P ? WITHHELD_P2P_LAG : WITHHELD_SLOT_REUSED;
      }
      continue;
    }
    if (ch->read_late) {
      t->desync[i] = CHANNEL_READ_LATE;
      t->channels_read_late++;
      if (!t->withheld_reason) t->withheld_reason = WITHHELD_SLOT_REUSED;
      continue;
    }
    /* Relaxed: the slot is owned by the caller; ordering came with the control word. */
    uint8_t state = atomic_load_explicit(&((channel_slot*)ch)->state, memory_order_relaxed);
    bool gpu_ok = state == CHANNEL_STOPPED && op_timing_gpu_interval_ok(ch->gpu_start_ns, ch->gpu_stop_ns);
    if (judge_early && gpu_ok && (int64_t)ch->gpu_start_ns < earliest) {
      t->desync[i] = CHANNEL_LAG_DETECTED;
      early_unpredicted |= 1ull << i;
      if (!t->withheld_reason) t->withheld_reason = WITHHELD_LAG_DETECTED;
      continue;
    }
    in_step++;
    if (gpu_ok && ch->gpu_start_ns < min_in_step_start) min_in_step_start = ch->gpu_start_ns;
  }
  /* An early channel that ended before any in-step channel of the same kernel began is another
   * work item's, beyond doubt: latch it (see op_timing.h). */
  if (in_step > 0 && min_in_step_start != UINT64_MAX) {
    for (uint32_t i = 0; i < channels_seen; i++) {
      if (((early_unpredicted >> i) & 1) && s->ch[i].gpu_stop_ns < min_in_step_start &&
          s->ch[i].channel_id < 64) {
        t->latch_channels |= 1ull << s->ch[i].channel_id;
      }
    }
  }
  /* Waiting channels: their own item's timestamps, handed on by the operation that read them, kept
   * when they pass the same checks as a channel of its own (in order, not before its launch). */
  uint64_t recovered = 0;
  uint32_t withheld_waiting = 0;
  if (numbered) {
    uint64_t got = atomic_load_explicit(&((op_slot*)s)->recov_got, memory_order_relaxed);
    uint64_t lost = atomic_load_explicit(&((op_slot*)s)->recov_lost, memory_order_relaxed);
    for (uint64_t w = waiting; w; w &= w - 1) {
      uint32_t c = (uint32_t)__builtin_ctzll(w);
      uint8_t reason;
      if ((got >> c) & 1) {
        bool ok = op_timing_gpu_interval_ok(s->recov_start[c], s->recov_stop[c]) &&
                  (!judge_early || (int64_t)s->recov_start[c] >= earliest);
        if (ok) {
          recovered |= 1ull << c;
          continue;
        }
        t->channels_causal_reject++;
        reason = WITHHELD_CAUSAL_CHECK;
      } else if ((lost >> c) & 1) {
        reason = atomic_load_explicit(&((op_slot*)s)->recov_lost_reason, memory_order_relaxed);
        if (reason == WITHHELD_NEVER_DELIVERED) t->channels_never_delivered++;
      } else {
        reason = WITHHELD_NEVER_DELIVERED;
        t->channels_never_delivered++;
      }
      withheld_waiting++;
      if (!t->withheld_reason) t->withheld_reason = reason;
    }
  }
  t->channels_recovered = (uint8_t)__builtin_popcountll(recovered);
  uint32_t desynced = channels_seen - in_step - handed_on + withheld_waiting;
  uint32_t usable = in_step + t->channels_recovered;
  t->channels_desynced = (uint8_t)desynced;
  if (desynced > 0 && usable == 0) {
    /* Every channel carried another work item's timestamps: no time can be given. */
    t->source = TIMING_NONE;
    t->quarantine = QUARANTINE_KERNEL_CHANNEL_DESYNC;
    t->time_recovery = TIME_WITHHELD;
    return;
  }

  /* Second pass: time the operation by its in-step channels. */
  uint64_t max_gpu = 0, max_any = 0, min_gpu_start = UINT64_MAX, max_gpu_start = 0, max_gpu_stop = 0;
  uint64_t first_cpu = 0, last_cpu = 0;
  bool all_gpu = usable > 0, all_timed = usable > 0;
  for (uint64_t w = recovered; w; w &= w - 1) {
    uint32_t c = (uint32_t)__builtin_ctzll(w);
    uint64_t a = s->recov_start[c], b = s->recov_stop[c];
    if (b - a > max_gpu) max_gpu = b - a;
    if (b - a > max_any) max_any = b - a;
    if (a < min_gpu_start) min_gpu_start = a;
    if (a > max_gpu_start) max_gpu_start = a;
    if (b > max_gpu_stop) max_gpu_stop = b;
  }
  for (uint32_t i = 0; i < channels_seen; i++) {
    if (t->desync[i] != CHANNEL_IN_STEP) continue;
    const channel_slot* ch = &s->ch[i];
    /* Relaxed: the slot is owned by the caller; ordering came with the control word. */
    uint8_t state = atomic_load_explicit(&((channel_slot*)ch)->state, memory_order_relaxed);
    if (ch->cpu_start_ns != 0 && (first_cpu == 0 || ch->cpu_start_ns < first_cpu)) first_cpu = ch->cpu_start_ns;
    uint64_t cpu_end = ch->cpu_stop_ns ? ch->cpu_stop_ns : ch->cpu_record_ns;
    if (cpu_end > last_cpu) last_cpu = cpu_end;
    if (state != CHANNEL_STOPPED) {
      all_gpu = all_timed = false;
      continue;
    }
    bool gpu_ok = op_timing_gpu_interval_ok(ch->gpu_start_ns, ch->gpu_stop_ns);
    bool cpu_ok = ch->cpu_start_ns != 0 && ch->cpu_stop_ns >= ch->cpu_start_ns;
    uint64_t d;
    if (gpu_ok) {
      d = ch->gpu_stop_ns - ch->gpu_start_ns;
      if (d > max_gpu) max_gpu = d;
      if (ch->gpu_start_ns < min_gpu_start) min_gpu_start = ch->gpu_start_ns;
      if (ch->gpu_start_ns > max_gpu_start) max_gpu_start = ch->gpu_start_ns;
      if (ch->gpu_stop_ns > max_gpu_stop) max_gpu_stop = ch->gpu_stop_ns;
    } else {
      all_gpu = false;
      if (gpu_timestamps_expected && complete && t->quarantine == QUARANTINE_NONE) {
        t->quarantine = quarantine_reason(ch->gpu_start_ns, ch->gpu_stop_ns);
      }
      d = cpu_ok ? ch->cpu_stop_ns - ch->cpu_start_ns : 0;
      if (!cpu_ok) all_timed = false;
    }
    if (d > max_any) max_any = d;
  }
  if (max_gpu_stop != 0) {
    t->gpu_start_ns = min_gpu_start;
    t->gpu_span_ns = max_gpu_stop - min_gpu_start;
    t->gpu_skew_ns = max_gpu_start - min_gpu_start;
  }
  if (complete && all_gpu) {
    t->source = TIMING_KERNEL_GPU;
    t->exec_ns = max_gpu;
    t->time_recovery = recovered ? TIME_RECOVERED : TIME_DIRECT;
  } else if (complete && all_timed) {
    t->source = TIMING_KERNEL_CPU;
    t->exec_ns = max_any;
  } else {
    /* The operation's own CPU span: from its first sign of life on an in-step channel (or its
     * start) to its last (or its stop), as the reference does for collective_cpu. */
    uint64_t begin = first_cpu ? first_cpu : s->start_ns;
    uint64_t end = last_cpu ? last_cpu : (s->stop_ns ? s->stop_ns : begin);
    t->source = TIMING_COLLECTIVE_CPU;
    t->exec_ns = end > begin ? end - begin : 0;
  }
}
