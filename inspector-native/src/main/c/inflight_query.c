#include "inflight_query.h"

#include <string.h>

#include "clock.h"
#include "core_state.h"
#include "record_emit.h"

int inflight_query(uint64_t now_ns, uint64_t min_age_ns, inflight_entry* out, int max) {
  op_table* t = &g_core.ops;
  int n = 0;
  uint32_t used = op_table_used_bound(t);
  for (uint32_t i = 0; i < used && n < max; i++) {
    op_slot* s = &t->slots[i];
    if (!op_enter_any(s)) continue;
    /* Relaxed: we are inside the slot; the values describe it as of now. */
    uint64_t c = atomic_load_explicit(&s->ctl, memory_order_relaxed);
    if (now_ns > s->start_ns && now_ns - s->start_ns >= min_age_ns) {
      inflight_entry* e = &out[n++];
      memset(e, 0, sizeof(*e));
      e->comm_serial = s->comm_serial;
      e->comm_id = s->comm_id;
      e->seq = s->seq;
      e->start_wall_ns = clock_mono_to_wall_ns(s->start_ns);
      e->age_ns = now_ns - s->start_ns;
      e->step = s->step;
      e->phase = s->phase;
      e->kind = s->kind;
      e->func = s->func;
      e->channels_started = (uint8_t)ctl_started(c);
      e->channels_done = (uint8_t)ctl_done(c);
      e->stopped = (ctl_flags(c) & OP_FLAG_STOPPED) != 0;
      e->n_channels = s->n_channels;
      e->peer_or_root = s->peer_or_root;
    }
    if (op_leave(s, 0, 0)) finish_op(s, 0);
  }
  return n;
}
