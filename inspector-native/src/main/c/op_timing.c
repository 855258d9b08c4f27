#include "op_timing.h"

#include "clock.h"
#include "gpu_clock_check.h"
#include "names.h"
#include "record_format.h"

static uint8_t quarantine_reason(uint64_t start, uint64_t stop, bool stale) {
  if (start == 0 || stop == 0) return QUARANTINE_GPU_TIMESTAMP_ZERO;
  if (stale) return QUARANTINE_GPU_TIMESTAMP_STALE;
  if (stop <= start) return QUARANTINE_GPU_TIMESTAMP_REVERSED;
  return QUARANTINE_GPU_TIMESTAMP_ABSURD;
}

op_timing op_timing_compute(const op_slot* s, uint32_t channels_seen, bool complete) {
  op_timing t = {TIMING_COLLECTIVE_CPU, QUARANTINE_NONE, 0, 0, 0, 0};
  if (s->static_flags & RECORD_FLAG_COPY_ENGINE) {
    t.source = TIMING_CE_CPU;
    t.exec_ns = s->stop_ns > s->start_ns ? s->stop_ns - s->start_ns : 0;
    return t;
  }
  bool gpu_timestamps_expected = s->abi_version >= 4;
  uint64_t enqueue_wall = gpu_timestamps_expected && complete ? clock_mono_to_wall_ns(s->start_ns) : 0;
  uint64_t max_gpu = 0, max_any = 0, min_gpu_start = UINT64_MAX, max_gpu_start = 0, max_gpu_stop = 0;
  uint64_t first_cpu = 0, last_cpu = 0;
  bool all_gpu = channels_seen > 0, all_timed = channels_seen > 0;
  for (uint32_t i = 0; i < channels_seen && i < INSPECTOR_MAX_CHANNELS; i++) {
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
    bool stale = gpu_ok && gpu_clock_start_is_stale(ch->gpu_start_ns, enqueue_wall);
    if (stale) gpu_ok = false;
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
      if (gpu_timestamps_expected && complete && t.quarantine == QUARANTINE_NONE) {
        t.quarantine = quarantine_reason(ch->gpu_start_ns, ch->gpu_stop_ns, stale);
      }
      d = cpu_ok ? ch->cpu_stop_ns - ch->cpu_start_ns : 0;
      if (!cpu_ok) all_timed = false;
    }
    if (d > max_any) max_any = d;
  }
  if (max_gpu_stop != 0) {
    t.gpu_start_ns = min_gpu_start;
    t.gpu_span_ns = max_gpu_stop - min_gpu_start;
    t.gpu_skew_ns = max_gpu_start - min_gpu_start;
  }
  if (complete && all_gpu) {
    gpu_clock_observe(min_gpu_start, enqueue_wall);
    t.source = TIMING_KERNEL_GPU;
    t.exec_ns = max_gpu;
  } else if (complete && all_timed) {
    t.source = TIMING_KERNEL_CPU;
    t.exec_ns = max_any;
  } else {
    /* The operation's own CPU span: from its first sign of life on a channel (or its start) to
     * its last (or its stop), as the reference does for collective_cpu. */
    uint64_t begin = first_cpu ? first_cpu : s->start_ns;
    uint64_t end = last_cpu ? last_cpu : (s->stop_ns ? s->stop_ns : begin);
    t.source = TIMING_COLLECTIVE_CPU;
    t.exec_ns = end > begin ? end - begin : 0;
  }
  return t;
}
