#include "proxy_breakdown.h"

#include <string.h>

#include "clock.h"
#include "core_state.h"
#include "event_counters.h"
#include "nccl_profiler_abi.h"
#include "op_table.h"

_Static_assert(ncclProfilerProxyStepSendPeerWait_v4 == 20 && ncclProfilerProxyStepSendWait == 9 &&
                   ncclProfilerProxyStepRecvFlushWait == 11,
               "proxy_step_state_used names NCCL's state values");
#include "record_emit.h"

static inline void* proxy_handle(const void* op_handle, uint32_t cell, bool step) {
  uint32_t index = handle_index(op_handle) | PROXY_HANDLE_BIT | (step ? PROXY_STEP_BIT : 0);
  return handle_make(HANDLE_TAG_CHANNEL, index, cell, handle_gen(op_handle));
}

/* The op handle a proxy handle was made from (same slot and generation). */
static inline void* op_handle_of(const void* h) {
  return handle_make(HANDLE_TAG_OP, proxy_handle_slot(h), 0, handle_gen(h));
}

void* proxy_op_start(void* parent, uint8_t channel_id, int32_t peer, int32_t n_steps, int is_send) {
  if (parent == NULL) return NULL; /* its operation is not tracked */
  if (handle_tag(parent) != HANDLE_TAG_OP || !core_has_tables()) {
    counter_add(CTR_INVALID_HANDLE, 1);
    return NULL;
  }
  op_slot* s = op_enter(&g_core.ops, parent);
  if (s == NULL) {
    counter_add(CTR_STALE_HANDLE, 1);
    return NULL;
  }
  /* Relaxed: only numbers the cells of this operation; the control word orders their contents. */
  uint32_t cell = atomic_fetch_add_explicit(&s->proxy_cells, 1, memory_order_relaxed);
  if (cell >= OP_PROXY_CELLS) {
    counter_add(CTR_PROXY_OPS_UNTRACKED, 1);
    if (op_leave(s, 0, 0)) finish_op(s, 0);
    return NULL;
  }
  proxy_cell* p = &s->px[cell];
  memset(p, 0, sizeof(*p));
  p->peer = peer;
  p->channel_id = channel_id;
  p->is_send = is_send != 0;
  p->n_steps = n_steps < 0 ? 0 : (n_steps > 0xffff ? 0xffff : (uint16_t)n_steps);
  /* Counted open from here: the operation waits for this proxy operation's stop. */
  if (op_leave_p(s, 0, 0, +1)) finish_op(s, 0);
  return proxy_handle(parent, cell, false);
}

/* Enters the operation a proxy handle belongs to; NULL (counted) when it is gone. */
static op_slot* enter_cell(const void* h, proxy_cell** cell) {
  if (!core_has_tables()) return NULL;
  op_slot* s = op_enter(&g_core.ops, op_handle_of(h));
  if (s == NULL) {
    counter_add(CTR_STALE_HANDLE, 1);
    return NULL;
  }
  *cell = &s->px[handle_channel(h) % OP_PROXY_CELLS];
  return s;
}

void* proxy_step_start(void* parent) {
  if (parent == NULL) return NULL;
  if (handle_tag(parent) != HANDLE_TAG_CHANNEL || !proxy_handle_is(parent) || proxy_handle_is_step(parent)) {
    counter_add(CTR_INVALID_HANDLE, 1);
    return NULL;
  }
  proxy_cell* p;
  op_slot* s = enter_cell(parent, &p);
  if (s == NULL) return NULL;
  if (p->first_post_ns == 0) p->first_post_ns = clock_mono_ns();
  p->steps++;
  if (op_leave(s, 0, 0)) finish_op(s, 0);
  return proxy_handle(op_handle_of(parent), handle_channel(parent), true);
}

void proxy_step_state(void* handle, int state, uint64_t trans_size) {
  if (handle == NULL) return;
  bool send_ready = state != ncclProfilerProxyStepRecvFlushWait;
  if (handle_tag(handle) != HANDLE_TAG_CHANNEL || !proxy_handle_is_step(handle)) {
    counter_add(CTR_INVALID_HANDLE, 1);
    return;
  }
  proxy_cell* p;
  op_slot* s = enter_cell(handle, &p);
  if (s == NULL) return;
  if (send_ready) {
    /* SendPeerWait marks the chunk ready (interface v4+); SendWait follows with the size once the
     * network took it. Only the first ready step reads the clock. */
    if (p->first_ready_ns == 0) p->first_ready_ns = clock_mono_ns();
    if (state == ncclProfilerProxyStepSendWait) p->bytes += trans_size;
  } else {
    uint64_t now = clock_mono_ns();
    if (p->first_ready_ns == 0) p->first_ready_ns = now;
    p->last_ready_ns = now;
    p->bytes += trans_size;
  }
  if (op_leave(s, 0, 0)) finish_op(s, 0);
}

void proxy_stop(void* handle) {
  proxy_cell* p;
  op_slot* s = enter_cell(handle, &p);
  if (s == NULL) return;
  int delta = 0;
  if (proxy_handle_is_step(handle)) {
    if (p->steps_done < 0xffff) p->steps_done++;
  } else if (!p->stopped) {
    p->stopped = 1;
    p->done_ns = clock_mono_ns();
    delta = -1;
  } else {
    counter_add(CTR_DUPLICATE_STOP, 1);
  }
  if (op_leave_p(s, 0, 0, delta)) finish_op(s, 0);
}

uint32_t proxy_summarize(const proxy_cell* cells, uint32_t seen, net_record* out,
                         proxy_detail_record* details) {
  memset(out, 0, sizeof(*out));
  uint32_t tracked = seen < OP_PROXY_CELLS ? seen : OP_PROXY_CELLS;
  out->proxy_ops = (uint8_t)(seen < 0xff ? seen : 0xff);
  out->proxy_ops_tracked = (uint8_t)tracked;
  out->slowest_peer = -1;
  uint64_t first_post = 0, last_done = 0, last_arrival = 0;
  bool all_done = tracked > 0;
  for (uint32_t i = 0; i < tracked; i++) {
    const proxy_cell* p = &cells[i];
    if (p->first_post_ns != 0 && (first_post == 0 || p->first_post_ns < first_post)) first_post = p->first_post_ns;
    if (p->stopped) {
      if (p->done_ns > last_done) last_done = p->done_ns;
    } else {
      all_done = false;
    }
    if (p->is_send) {
      out->bytes_sent += p->bytes;
      if (p->first_post_ns != 0 && p->first_ready_ns >= p->first_post_ns &&
          p->first_ready_ns - p->first_post_ns > out->send_gpu_wait_ns) {
        out->send_gpu_wait_ns = p->first_ready_ns - p->first_post_ns;
      }
    } else {
      out->bytes_received += p->bytes;
      if (p->last_ready_ns > last_arrival) last_arrival = p->last_ready_ns;
      if (p->first_post_ns != 0 && p->first_ready_ns >= p->first_post_ns) {
        uint64_t wait = p->first_ready_ns - p->first_post_ns;
        if (out->slowest_peer < 0 || wait > out->recv_wait_ns) {
          out->recv_wait_ns = wait;
          out->slowest_peer = p->peer;
          out->slowest_channel = p->channel_id;
        }
      }
    }
    if (details != NULL) {
      proxy_detail_record* d = &details[i];
      memset(d, 0, sizeof(*d));
      d->peer = p->peer;
      d->channel_id = p->channel_id;
      d->is_send = p->is_send;
      d->steps_done = p->steps_done;
      d->n_steps = p->n_steps;
      d->steps = p->steps;
      d->bytes = p->bytes;
      d->first_post_wall_ns = clock_mono_to_wall_ns(p->first_post_ns);
      d->first_ready_wall_ns = clock_mono_to_wall_ns(p->first_ready_ns);
      d->last_ready_wall_ns = clock_mono_to_wall_ns(p->last_ready_ns);
      d->done_wall_ns = p->stopped ? clock_mono_to_wall_ns(p->done_ns) : 0;
    }
  }
  out->first_post_wall_ns = clock_mono_to_wall_ns(first_post);
  out->last_done_wall_ns = all_done ? clock_mono_to_wall_ns(last_done) : 0;
  out->last_arrival_wall_ns = clock_mono_to_wall_ns(last_arrival);
  out->detail_cells = details != NULL ? (uint8_t)tracked : 0;
  return 1 + out->detail_cells;
}
