#include "op_reclaim.h"

#include <sched.h>

#include "channel_recovery.h"
#include "core_state.h"
#include "event_counters.h"
#include "record_emit.h"
#include "record_format.h"

/* How many slots past the oldest allocation an eviction may try. */
#define EVICTION_CANDIDATES 8
/* How often a flush retries a slot that an event is inside of before giving up on it. */
#define FLUSH_RETRIES 10000

/* Whether an operation is done but for channels waiting for their own item's timestamps from a later
 * operation (channel_recovery.h): closed now, it is complete, those channels "never delivered".
 * The caller is inside the slot. */
static bool only_recovery_pending(op_slot* s, uint64_t c) {
  if (!(ctl_flags(c) & OP_FLAG_STOPPED) || s->expected_channels == EXPECT_UNCOUNTED) return false;
  /* Relaxed: read inside the slot; a racing hand-over makes the close below fail or is counted
   * stale, never written. */
  if (atomic_load_explicit(&s->recov_state, memory_order_relaxed) != RECOV_OP_NUMBERED || s->recov_wait == 0) {
    return false;
  }
  uint64_t answered = atomic_load_explicit(&s->recov_answered, memory_order_relaxed) & s->recov_wait;
  uint32_t own_expected = s->expected_channels - (uint32_t)__builtin_popcountll(s->recov_wait);
  uint32_t own_done = ctl_done(c) - (uint32_t)__builtin_popcountll(answered);
  return own_done >= own_expected && ctl_proxy_open(c) == 0;
}

void reclaim_flush_all(int when, uint64_t comm_serial) {
  op_table* t = &g_core.ops;
  uint32_t used = op_table_used_bound(t);
  for (uint32_t i = 0; i < used; i++) {
    op_slot* s = &t->slots[i];
    for (int attempt = 0; attempt < FLUSH_RETRIES; attempt++) {
      if (!op_enter_any(s)) break;
      if (comm_serial != 0 && s->comm_serial != comm_serial) {
        if (op_leave(s, 0, 0)) finish_op(s, 0);
        break;
      }
      bool completed;
      bool recovery_only = only_recovery_pending(s, atomic_load_explicit(&s->ctl, memory_order_relaxed));
      if (op_leave_and_close(s, &completed)) {
        if (completed || recovery_only) {
          finish_op(s, 0);
        } else {
          counter_add(when == RECLAIM_AT_CLOSE ? CTR_FLUSHED_AT_CLOSE : CTR_FLUSHED_AT_FINALIZE, 1);
          finish_op(s, RECORD_FLAG_INCOMPLETE | RECORD_FLAG_FLUSHED);
        }
        break;
      }
      sched_yield(); /* an event is inside this slot right now; it will leave shortly */
    }
  }
}

uint32_t reclaim_sweep(uint64_t now_ns) {
  uint64_t expiry = atomic_load_explicit(&g_core.inflight_expiry_ns, memory_order_relaxed);
  op_table* t = &g_core.ops;
  uint32_t closed = 0;
  uint32_t used = op_table_used_bound(t);
  for (uint32_t i = 0; i < used; i++) {
    op_slot* s = &t->slots[i];
    if (!op_enter_any(s)) continue;
    /* Relaxed: a channel that starts concurrently makes the slot busy, and the close below then
     * fails; the values only decide whether to try. */
    uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed);
    uint32_t flags = ctl_flags(c);
    uint32_t started = ctl_started(c);
    bool quiescent = (flags & OP_FLAG_STOPPED) && s->expected_channels == EXPECT_UNCOUNTED &&
                     started > 0 && ctl_done(c) == started && s->last_channel_stop_ns != 0 &&
                     now_ns > s->last_channel_stop_ns &&
                     now_ns - s->last_channel_stop_ns > RECLAIM_QUIESCENCE_NS;
    if (quiescent) {
      bool completed;
      if (op_leave_and_close(s, &completed)) {
        if (!completed) counter_add(CTR_QUIESCENT_CLOSE, 1);
        finish_op(s, 0);
      }
      continue;
    }
    /* Done but for proxy operations whose stop has not come: NCCL's proxy finishes a transfer
     * within milliseconds of the kernel, so one still open after the grace will not stop (an
     * aborted communicator, a lost event). The sweeper alone writes proxy_wait_since_ns. */
    bool proxy_pending = (flags & OP_FLAG_STOPPED) && ctl_proxy_open(c) > 0 &&
                         s->expected_channels != EXPECT_UNCOUNTED && ctl_done(c) >= s->expected_channels;
    if (proxy_pending && s->proxy_wait_since_ns == 0) s->proxy_wait_since_ns = now_ns;
    if (proxy_pending && now_ns > s->proxy_wait_since_ns && now_ns - s->proxy_wait_since_ns > RECLAIM_PROXY_GRACE_NS) {
      bool completed;
      if (op_leave_and_close(s, &completed)) finish_op(s, 0); /* flagged proxy_incomplete */
      continue;
    }
    /* Waiting within the in-flight expiry for channels handed on by later operations (the last
     * operations before a communicator goes quiet have no later one): closed as complete. */
    if (expiry != 0 && now_ns > s->start_ns && now_ns - s->start_ns > expiry && only_recovery_pending(s, c)) {
      bool completed;
      if (op_leave_and_close(s, &completed)) finish_op(s, 0);
      continue;
    }
    bool expired = expiry != 0 && (flags & OP_FLAG_STOPPED) && started == 0 &&
                   now_ns > s->start_ns && now_ns - s->start_ns > expiry;
    if (!expired) {
      if (op_leave(s, 0, 0)) finish_op(s, 0);
      continue;
    }
    bool completed;
    if (op_leave_and_close(s, &completed)) {
      if (completed) {
        finish_op(s, 0);
      } else {
        counter_add(CTR_EXPIRED_NO_KERNEL, 1);
        finish_op(s, RECORD_FLAG_INCOMPLETE | RECORD_FLAG_EXPIRED);
        closed++;
      }
    }
  }
  return closed;
}

int64_t reclaim_evict_for(uint32_t candidate) {
  op_table* t = &g_core.ops;
  for (uint32_t k = 0; k < EVICTION_CANDIDATES && k < t->capacity; k++) {
    uint32_t index = (candidate + k) % t->capacity;
    op_slot* s = &t->slots[index];
    if (!op_enter_any(s)) continue;
    bool completed;
    if (op_leave_and_close(s, &completed)) {
      if (completed) {
        emit_op_record(s, 0);
      } else {
        counter_add(CTR_EVICTED_TABLE_FULL, 1);
        emit_op_record(s, RECORD_FLAG_INCOMPLETE | RECORD_FLAG_EVICTED);
      }
      op_recycle_owned(s);
      return index;
    }
  }
  return -1;
}

void reclaim_announce_live_comms(void) {
  comm_table* t = &g_core.comms;
  for (uint32_t i = 0; i < t->capacity; i++) {
    comm_slot* c = &t->slots[i];
    /* Acquire: pairs with the release in comm_table_publish. */
    uint64_t ctl = atomic_load_explicit(&c->ctl, memory_order_acquire);
    if ((ctl & 0xff) == COMM_LIVE) emit_comm_record(c, RECORD_KIND_COMM_CREATED);
  }
}
