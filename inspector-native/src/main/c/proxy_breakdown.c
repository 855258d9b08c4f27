#include "proxy_breakdown.h"

#include <stdatomic.h>
#include <string.h>

#include "clock.h"
#include "core_state.h"
#include "event_counters.h"
#include "nccl_profiler_abi.h"
#include "op_table.h"
#include "record_emit.h"
#include "zero_fill.h"

_Static_assert(ncclProfilerProxyStepSendGPUWait == 8 && ncclProfilerProxyStepSendWait == 9 &&
                   ncclProfilerProxyStepRecvWait == 10 && ncclProfilerProxyStepRecvFlushWait == 11 &&
                   ncclProfilerProxyStepRecvGPUWait == 12 && ncclProfilerProxyStepSendPeerWait_v4 == 20,
               "proxy_step_state_used names NCCL's state values");
_Static_assert(OP_PROXY_CELLS <= 16, "a cell index fits the handle's four bits");
_Static_assert(PROXY_STEP_RING == 8, "a ring entry fits the handle's three bits");
_Static_assert(INSPECTOR_MAX_OP_SLOTS <= PROXY_RING_BIT, "op slot indices leave the proxy bits free");

static inline void* proxy_handle(const void* op_handle, uint32_t cell, bool step, uint32_t ring) {
  uint32_t index = handle_index(op_handle) | PROXY_HANDLE_BIT | (step ? PROXY_STEP_BIT : 0) |
                   ((ring & 4u) ? PROXY_RING_BIT : 0);
  return handle_make(HANDLE_TAG_CHANNEL, index, (cell & 15u) | ((ring & 3u) << 4), handle_gen(op_handle));
}

/* The op handle a proxy handle was made from (same slot and generation). */
static inline void* op_handle_of(const void* h) {
  return handle_make(HANDLE_TAG_OP, proxy_handle_slot(h), 0, handle_gen(h));
}

static inline uint32_t sat32(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

/* A step's transition k happened now (one clock read): keeps its offset from the step's start
 * and returns the time itself (exact where the offset saturates). */
static inline uint64_t mark(proxy_step* st, int k) {
  uint64_t now = clock_mono_ns();
  st->at[k] = now > st->start_ns ? sat32(now - st->start_ns) : 0;
  st->have |= (uint8_t)(1u << k);
  return now;
}

/* The phase between transitions k-1 and k, where both happened. */
static inline bool phase(const proxy_step* st, int k, uint32_t* out) {
  uint8_t both = (uint8_t)((1u << k) | (1u << (k - 1)));
  if ((st->have & both) != both) return false;
  *out = st->at[k] >= st->at[k - 1] ? st->at[k] - st->at[k - 1] : 0;
  return true;
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
  ZERO_FILL(p);
  p->peer = peer;
  p->channel_id = channel_id;
  p->is_send = is_send != 0;
  p->n_steps = n_steps < 0 ? 0 : (n_steps > 0xffff ? 0xffff : (uint16_t)n_steps);
  /* Counted open from here: the operation waits for this proxy operation's stop. */
  if (op_leave_p(s, 0, 0, +1)) finish_op(s, 0);
  return proxy_handle(parent, cell, false, 0);
}

/* Enters the operation a proxy handle belongs to; NULL (counted) when it is gone. */
static op_slot* enter_cell(const void* h, proxy_cell** cell) {
  if (!core_has_tables()) return NULL;
  op_slot* s = op_enter(&g_core.ops, op_handle_of(h));
  if (s == NULL) {
    counter_add(CTR_STALE_HANDLE, 1);
    return NULL;
  }
  *cell = &s->px[proxy_handle_cell(h) % OP_PROXY_CELLS];
  return s;
}

void* proxy_step_start(void* parent, int32_t step) {
  if (parent == NULL) return NULL;
  if (handle_tag(parent) != HANDLE_TAG_CHANNEL || !proxy_handle_is(parent) || proxy_handle_is_step(parent)) {
    counter_add(CTR_INVALID_HANDLE, 1);
    return NULL;
  }
  proxy_cell* p;
  op_slot* s = enter_cell(parent, &p);
  if (s == NULL) return NULL;
  uint32_t ring = (uint32_t)step % PROXY_STEP_RING; /* NCCL's own index: step % NCCL_STEPS */
  proxy_step* st = &p->ring[ring];
  /* NCCL restarts a receive step whose buffer was not ready (net.cc): the entry starts again. */
  ZERO_FILL(st);
  st->start_ns = clock_mono_ns();
  st->step = step < 0 ? 0 : (uint32_t)step;
  st->state = PROXY_STEP_STARTED;
  if (p->first_post_ns == 0) p->first_post_ns = st->start_ns;
  p->steps++;
  if (op_leave(s, 0, 0)) finish_op(s, 0);
  return proxy_handle(op_handle_of(parent), proxy_handle_cell(parent), true, ring);
}

static void add_phase(uint64_t* sum, uint32_t* max, uint32_t* count, uint32_t v) {
  *sum += v;
  if (v > *max) *max = v;
  (*count)++;
}

void proxy_step_state(void* handle, int state, uint64_t trans_size) {
  if (handle == NULL) return;
  if (handle_tag(handle) != HANDLE_TAG_CHANNEL || !proxy_handle_is_step(handle)) {
    counter_add(CTR_INVALID_HANDLE, 1);
    return;
  }
  proxy_cell* p;
  op_slot* s = enter_cell(handle, &p);
  if (s == NULL) return;
  proxy_step* st = &p->ring[proxy_handle_ring(handle)];
  uint32_t v;
  switch (state) {
    case ncclProfilerProxyStepSendGPUWait:
    case ncclProfilerProxyStepRecvWait:
      /* Posted: NCCL did nothing but its own bookkeeping (and, receiving, the irecv call) since
       * the start, so this phase is the proxy thread's own time. */
      if (st->state == PROXY_STEP_STARTED) {
        mark(st, 0);
        add_phase(&p->lag_ns, &p->lag_max_ns, &p->lag_steps, st->at[0]);
        st->state = PROXY_STEP_POSTED;
      }
      break;
    case ncclProfilerProxyStepSendPeerWait_v4:
      /* Ready: the GPU produced the chunk. NCCL records it again at every try while the peer
       * gives no credit; only the first reads the clock. */
      if (st->state == PROXY_STEP_STARTED || st->state == PROXY_STEP_POSTED) {
        uint64_t now = mark(st, 1);
        st->state = PROXY_STEP_READY;
        if (p->first_ready_ns == 0) p->first_ready_ns = now;
      }
      break;
    case ncclProfilerProxyStepSendWait:
      /* Handed to the network, with its size: the wait for the peer's credit ends. */
      if (st->state >= PROXY_STEP_STARTED && st->state < PROXY_STEP_MOVED) {
        uint64_t now = mark(st, 2);
        st->state = PROXY_STEP_MOVED;
        if (phase(st, 2, &v)) add_phase(&p->peer_wait_ns, &p->peer_wait_max_ns, &p->peer_wait_steps, v);
        if (p->first_ready_ns == 0) p->first_ready_ns = now;
        p->bytes += trans_size;
      }
      break;
    case ncclProfilerProxyStepRecvFlushWait:
      /* Arrived, with its size: a receive's real completion for this chunk. */
      if (st->state >= PROXY_STEP_STARTED && st->state < PROXY_STEP_READY) {
        uint64_t now = mark(st, 1);
        st->state = PROXY_STEP_READY;
        if (p->first_ready_ns == 0) p->first_ready_ns = now;
        if (now > p->last_ready_ns) p->last_ready_ns = now;
        p->bytes += trans_size;
      }
      break;
    case ncclProfilerProxyStepRecvGPUWait:
      /* Flushed: handed to the GPU. */
      if (st->state == PROXY_STEP_READY) {
        mark(st, 2);
        st->state = PROXY_STEP_MOVED;
        if (phase(st, 2, &v)) add_phase(&p->flush_ns, &p->flush_max_ns, &p->flush_steps, v);
      }
      break;
    default:
      break;
  }
  if (op_leave(s, 0, 0)) finish_op(s, 0);
}

void proxy_stop(void* handle) {
  proxy_cell* p;
  op_slot* s = enter_cell(handle, &p);
  if (s == NULL) return;
  int delta = 0;
  if (proxy_handle_is_step(handle)) {
    proxy_step* st = &p->ring[proxy_handle_ring(handle)];
    if (st->state != PROXY_STEP_EMPTY && st->state != PROXY_STEP_DONE) {
      /* Only the verbose per-step detail shows the last phase: the clock is read for it alone.
       * Relaxed: an independent setting. */
      if (atomic_load_explicit(&g_core.verbose, memory_order_relaxed)) mark(st, 3);
      st->state = PROXY_STEP_DONE;
    }
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

/* The verbose steps of one cell, oldest first, as records (returns how many). */
static uint32_t cell_steps(const proxy_cell* p, uint8_t detail, proxy_step_record* out) {
  const proxy_step* order[PROXY_STEP_RING];
  uint32_t n = 0;
  for (uint32_t r = 0; r < PROXY_STEP_RING; r++) {
    const proxy_step* st = &p->ring[r];
    if (st->state == PROXY_STEP_EMPTY) continue;
    uint32_t j = n++;
    while (j > 0 && order[j - 1]->step > st->step) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = st;
  }
  for (uint32_t i = 0; i < n; i++) {
    const proxy_step* st = order[i];
    proxy_step_record* o = &out[i];
    ZERO_FILL(o);
    o->detail = detail;
    o->state = st->state;
    o->step = st->step;
    o->start_wall_ns = clock_mono_to_wall_ns(st->start_ns);
    if (st->have & 1u) o->post_ns = st->at[0];
    phase(st, 1, &o->wait_ns);
    phase(st, 2, &o->move_ns);
    phase(st, 3, &o->done_ns);
    if (!(st->have & 2u) && (st->have & 5u) == 5u) {
      /* A send without SendPeerWait (interface v3): the GPU's and the peer's waits in one. */
      o->wait_ns = st->at[2] >= st->at[0] ? st->at[2] - st->at[0] : 0;
    }
  }
  return n;
}

uint32_t proxy_summarize(const proxy_cell* cells, uint32_t seen, bool verbose, net_record* out) {
  net_wait_record* w = (net_wait_record*)(out + 1);
  proxy_detail_record* details = (proxy_detail_record*)(out + 2);
  ZERO_FILL(out);
  ZERO_FILL(out + 1);
  uint32_t tracked = seen < OP_PROXY_CELLS ? seen : OP_PROXY_CELLS;
  out->proxy_ops = (uint8_t)(seen < 0xff ? seen : 0xff);
  out->proxy_ops_tracked = (uint8_t)tracked;
  out->slowest_peer = -1;
  w->peer_wait_peer = -1;
  uint64_t first_post = 0, last_done = 0, last_arrival = 0;
  bool all_done = tracked > 0;
  uint32_t longest_peer_wait = 0;
  for (uint32_t i = 0; i < tracked; i++) {
    const proxy_cell* p = &cells[i];
    if (p->first_post_ns != 0 && (first_post == 0 || p->first_post_ns < first_post)) first_post = p->first_post_ns;
    if (p->stopped) {
      if (p->done_ns > last_done) last_done = p->done_ns;
    } else {
      all_done = false;
    }
    w->steps += p->steps;
    w->proxy_lag_ns += p->lag_ns;
    w->lag_steps += p->lag_steps;
    if (p->lag_max_ns > w->proxy_lag_max_ns) w->proxy_lag_max_ns = p->lag_max_ns;
    if (p->is_send) {
      out->bytes_sent += p->bytes;
      if (p->first_post_ns != 0 && p->first_ready_ns >= p->first_post_ns &&
          p->first_ready_ns - p->first_post_ns > out->send_gpu_wait_ns) {
        out->send_gpu_wait_ns = p->first_ready_ns - p->first_post_ns;
      }
      w->send_peer_wait_ns += p->peer_wait_ns;
      w->peer_wait_steps += p->peer_wait_steps;
      if (p->peer_wait_steps > 0 && (w->peer_wait_peer < 0 || p->peer_wait_max_ns > longest_peer_wait)) {
        longest_peer_wait = p->peer_wait_max_ns;
        w->peer_wait_peer = p->peer;
        w->peer_wait_channel = p->channel_id;
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
      w->recv_flush_ns += p->flush_ns;
      w->flush_steps += p->flush_steps;
      if (p->flush_max_ns > w->recv_flush_max_ns) w->recv_flush_max_ns = p->flush_max_ns;
    }
  }
  w->send_peer_wait_max_ns = longest_peer_wait;
  w->known = (uint8_t)((w->peer_wait_steps > 0 ? NET_KNOWN_PEER_WAIT : 0) |
                       (w->flush_steps > 0 ? NET_KNOWN_FLUSH : 0) | (w->lag_steps > 0 ? NET_KNOWN_LAG : 0));
  out->first_post_wall_ns = clock_mono_to_wall_ns(first_post);
  out->last_done_wall_ns = all_done ? clock_mono_to_wall_ns(last_done) : 0;
  out->last_arrival_wall_ns = clock_mono_to_wall_ns(last_arrival);
  if (!verbose) return 2;

  proxy_step_record* steps = (proxy_step_record*)(details + tracked);
  uint32_t n_steps = 0;
  for (uint32_t i = 0; i < tracked; i++) {
    const proxy_cell* p = &cells[i];
    proxy_detail_record* d = &details[i];
    ZERO_FILL(d);
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
    uint32_t k = cell_steps(p, (uint8_t)i, &steps[n_steps]);
    d->ring_steps = (uint8_t)k;
    n_steps += k;
  }
  if (n_steps % 2 != 0) {
    ZERO_FILL(&steps[n_steps]);
    steps[n_steps].detail = 0xff; /* the empty half of the last cell */
  }
  out->detail_cells = (uint8_t)tracked;
  w->step_cells = (uint16_t)((n_steps + 1) / 2);
  return 2 + tracked + w->step_cells;
}
