#include "channel_recovery.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "channel_parked.h"
#include "channel_placed.h"
#include "clock.h"
#include "comm_table.h"
#include "core_state.h"
#include "event_counters.h"
#include "gpu_clock_bound.h"
#include "handles.h"
#include "launch_clock.h"
#include "names.h"
#include "op_table.h"
#include "op_timing.h"
#include "record_emit.h"
#include "record_format.h"

/* ---- communicator lifetime ------------------------------------------------------------------- */

static void count_off(uint8_t reason) {
  counter_add(CTR_RECOVERY_OFF, 1);
  (void)reason;
}

/* A used state back to what calloc gave: every field up to the owner rows and the launch windows
 * zeroed, of the per-channel rows only those of the channels the last communicator numbered (the
 * others were never written). A full memset of the 604 KiB was most of a communicator's init on
 * NCCL's thread, and left the state in the caches in place of what the callbacks use. */
static void reset_state(recov_state* r) {
  /* Relaxed: the last communicator's numbering is over (it was finalized, under the lifecycle lock
   * that this init holds too). */
  uint64_t used = atomic_load_explicit(&r->used_channels, memory_order_relaxed);
  memset(r, 0, offsetof(recov_state, owner));
  memset(r->windows, 0, sizeof(r->windows));
  for (; used; used &= used - 1) {
    uint32_t ch = (uint32_t)__builtin_ctzll(used);
    memset(r->owner[ch], 0, sizeof(r->owner[ch]));
    memset(&r->placed[ch], 0, sizeof(r->placed[ch]));
    memset(&r->parked[ch], 0, sizeof(r->parked[ch]));
  }
}

void recov_comm_init(comm_slot* c, bool enabled) {
  c->recov = NULL;
  uint8_t reason = RECOV_OFF_NONE;
  if (!enabled) reason = RECOV_OFF_SETTING;
  else if (c->abi_version < 5) reason = RECOV_OFF_INTERFACE;
  else if (c->nnodes > 1 && c->nnodes != c->nranks) reason = RECOV_OFF_MULTI_NODE;
  if (reason == RECOV_OFF_NONE) {
    /* At communicator init, on NCCL's init thread: the one allocation recovery makes, once per
     * communicator slot (comm_table.h: a later communicator in the slot resets it). */
    if (c->recov_mem == NULL) c->recov_mem = calloc(1, sizeof(recov_state));
    else reset_state(c->recov_mem);
    c->recov = c->recov_mem;
    if (c->recov == NULL) reason = RECOV_OFF_NO_MEMORY;
    else atomic_store_explicit(&c->recov->max_units, 1, memory_order_relaxed);
  }
  c->recov_off_at_init = reason;
  if (reason != RECOV_OFF_NONE && reason != RECOV_OFF_SETTING) count_off(reason);
}

void recov_comm_finalize(comm_slot* c) {
  /* Not freed (comm_table.h: recov_mem): an event still inside one of the communicator's
   * operations after the flush gave up waiting for it keeps reading valid memory. */
  c->recov = NULL;
}

static inline uint8_t off_reason(const comm_slot* c) {
  if (c->recov == NULL) return c->recov_off_at_init;
  /* Relaxed: a self-contained value; a reader that misses a fresh "off" still numbers or reads
   * with state that was right up to the cause, which is found before anything after it. */
  return atomic_load_explicit(&c->recov->off_reason, memory_order_relaxed);
}

uint8_t recov_off_reason(const comm_slot* c) { return off_reason(c); }

static void turn_off(comm_slot* c, uint8_t reason) {
  uint8_t none = RECOV_OFF_NONE;
  /* Relaxed CAS: the first reason wins; nothing is published with it. */
  if (c->recov != NULL &&
      atomic_compare_exchange_strong_explicit(&c->recov->off_reason, &none, reason, memory_order_relaxed,
                                              memory_order_relaxed)) {
    count_off(reason);
  }
}

/* The communicator of an operation, if still live and the same one (its serial). */
static comm_slot* comm_of(const op_slot* s) {
  comm_slot* c = comm_table_lookup(&g_core.comms, handle_make(HANDLE_TAG_COMM, s->comm_index, 0, s->comm_gen));
  return c != NULL && c->serial == s->comm_serial ? c : NULL;
}

/* ---- enqueuing thread: launches and calls ---------------------------------------------------- */

static bool enter_enqueue_side(comm_slot* c);
static void leave_enqueue_side(comm_slot* c);

void recov_note_launch(comm_slot* c) {
  recov_state* r = c->recov;
  if (r == NULL || off_reason(c) || !enter_enqueue_side(c)) return;
  r->launch_serial++;
  r->colls_in_launch = 0;
  /* Order: units_in_launch is reset before the launch is marked open, both before NCCL's
   * cuLaunchKernel (the KernelLaunch start precedes it). Relaxed stores: the proxy thread reads
   * them after NCCL read a timestamp slot that the launched kernel wrote, and the driver's doorbell
   * orders these earlier stores before the GPU can run (as in channel_late_read.h). */
  atomic_store_explicit(&r->units_in_launch, 0, memory_order_relaxed);
  atomic_store_explicit(&r->launch_word, ((uint64_t)r->launch_serial << 1) | 1, memory_order_relaxed);
  leave_enqueue_side(c);
}

void recov_note_api(comm_slot* c, uint8_t func) {
  recov_state* r = c->recov;
  /* NCCL >= 2.29.2 may run a Broadcast on its AllGatherV path without an operation event (an
   * unknown release is treated as such a release). */
  if (r == NULL || func != FUNC_BROADCAST) return;
  if (c->nccl_version != 0 && c->nccl_version < 22902) return;
  /* Relaxed: a count of its own; the call and its operation event are on one thread, or the
   * operation's thread sees the call's count through NCCL's own hand-over. */
  atomic_fetch_add_explicit(&r->bcast_api_pending, 1, memory_order_relaxed);
}

/* ---- the rule: channel sets ------------------------------------------------------------------ */

/* ncclP2pPartBounds: parts of divUp(bytes, nParts) rounded up to 4 KiB; a zero-byte op has one part. */
/* ncclP2pPartBounds: parts of divUp(bytes, nParts) rounded up to 4 KiB; a zero-byte op has one part.
 * The number of parts 0..n_parts-1 that carry data (each part that does precedes each that does
 * not): two divisions per operation instead of two per part. */
static uint32_t parts_with_data(uint32_t n_parts, uint64_t bytes) {
  if (n_parts == 0) return 0;
  if (bytes == 0) return 1;
  uint64_t per = (bytes + n_parts - 1) / n_parts;
  per = (per + 4095) / 4096 * 4096;
  uint64_t with = (bytes + per - 1) / per; /* parts p with p * per < bytes */
  return with < n_parts ? (uint32_t)with : n_parts;
}

/* The channels of parts 0..n-1, given as a set: parts ascend from the base channel modulo the P2P
 * channel count, so a wrap shows as a gap; order[] gets channel ids in part order. */
static uint32_t parts_in_order(uint64_t set, uint8_t order[64]) {
  uint8_t sorted[64];
  uint32_t n = 0;
  for (uint64_t rest = set; rest; rest &= rest - 1) sorted[n++] = (uint8_t)__builtin_ctzll(rest);
  uint32_t start = 0;
  for (uint32_t i = 1; i < n; i++) {
    if (sorted[i] != sorted[i - 1] + 1) {
      start = i;
      break;
    }
  }
  for (uint32_t k = 0, i = start; k < n; k++, i = i + 1 == n ? 0 : i + 1) order[k] = sorted[i];
  return n;
}

static bool shape_lookup(recov_state* r, int32_t peer, uint8_t dir, uint8_t n, uint64_t* channels) {
  /* Acquire: pairs with the release of the learner, so an entry seen ready has its fields. */
  uint32_t count = atomic_load_explicit(&r->n_shapes, memory_order_acquire);
  if (count > RECOV_SHAPES) count = RECOV_SHAPES;
  for (uint32_t i = 0; i < count; i++) {
    recov_shape* sh = &r->shapes[i];
    if (!atomic_load_explicit(&sh->ready, memory_order_acquire)) continue;
    if (sh->peer == peer && sh->dir == dir && sh->n == n) {
      *channels = sh->channels;
      return true;
    }
  }
  return false;
}

/* The channel set of a P2P unit to a peer, from its learned shape (out of line: the collectives'
 * path stays short). */
__attribute__((noinline)) static bool p2p_unit_channels(recov_state* r, const recov_unit* u, uint64_t* set,
                                                        uint64_t* counted) {
  uint64_t channels;
  if (!shape_lookup(r, u->peer, u->dir, u->n, &channels)) return false;
  uint8_t order[64];
  uint32_t n = parts_in_order(channels, order);
  *set = channels;
  *counted = 0;
  uint32_t with = parts_with_data(u->n, u->bytes);
  for (uint32_t part = 0; part < n && part < with; part++) *counted |= 1ull << order[part];
  return true;
}

/* Channel set of a unit: bit per channel, and which of them the host counts. False: not known. */
static inline bool unit_channels(recov_state* r, const recov_unit* u, uint64_t* set, uint64_t* counted) {
  uint64_t all = u->n >= 64 ? ~0ull : ((1ull << u->n) - 1);
  switch (u->kind) {
    case RECOV_UNIT_COLL: *set = all; *counted = all; return true;
    case RECOV_UNIT_SELF: *set = all; *counted = 0; return true; /* no proxy op: no host count */
    default: return p2p_unit_channels(r, u, set, counted);
  }
}

/* Channel set of a unit, a merge (the second operation of a P2P round) included. */
static bool merge_channels(const comm_slot* c, recov_state* r, const recov_unit* u, uint64_t* set,
                           uint64_t* counted) {
  if (u->kind != RECOV_UNIT_MERGE) return unit_channels(r, u, set, counted);
  recov_unit as_p2p = *u;
  as_p2p.kind = u->peer == c->rank ? RECOV_UNIT_SELF : RECOV_UNIT_P2P;
  return unit_channels(r, &as_p2p, set, counted);
}

/* The owner entry of item `item` on chan, if it still holds that item: its flags and first handle. */
static bool owner_of(recov_state* r, uint32_t chan, uint32_t item, uint32_t* flags, uint64_t* handle) {
  recov_owner* o = &r->owner[chan][item % RECOV_OWNERS];
  /* Acquire: pairs with the numbering's release of the item (the fields came before it). */
  uint32_t got = atomic_load_explicit(&o->item, memory_order_acquire);
  *flags = atomic_load_explicit(&o->flags, memory_order_relaxed);
  *handle = atomic_load_explicit(&o->handle[0], memory_order_relaxed);
  return got == item && atomic_load_explicit(&o->item, memory_order_acquire) == item;
}

/* Placements start at a communicator's first lagging unit or late read; before, every reading
 * passes the guard and the ring would only cost. Relaxed: a once-set flag with nothing to publish
 * (a reader that misses it skips a placement, which only leaves more candidates). */
static inline void start_placing(recov_state* r) {
  if (!atomic_load_explicit(&r->placing, memory_order_relaxed)) {
    atomic_store_explicit(&r->placing, 1, memory_order_relaxed);
  }
}

static inline bool placing(const recov_state* r) {
  return atomic_load_explicit(&r->placing, memory_order_relaxed);
}

/* ---- numbering (the drainer) ----------------------------------------------------------------- */

/* Pokes an owner: its waiting channel c got timestamps (ok) or is lost (reason). */
static void deliver(uint64_t handle, uint32_t c, bool ok, uint64_t start, uint64_t stop, uint8_t reason);
static void deliver_from(uint64_t handle, uint32_t c, bool ok, uint64_t start, uint64_t stop, uint8_t reason,
                         bool from_pair);

/* Numbers unit u (known channels); fills the tracked operation's slot fields (slot entered or in
 * INIT) and writes the owner entries. Returns the lag fields through the slot. */
static void number_unit(comm_slot* c, recov_state* r, const recov_unit* u, uint64_t set, uint64_t counted,
                        op_slot* s) {
  bool merge = u->kind == RECOV_UNIT_MERGE;
  uint64_t wait = 0, reads = 0, lagging = 0;
  uint32_t max_lag = 0;
  /* Relaxed load and store: the drainer is the only writer (see used_channels). */
  uint64_t used = atomic_load_explicit(&r->used_channels, memory_order_relaxed);
  if ((used & set) != set) atomic_store_explicit(&r->used_channels, used | set, memory_order_relaxed);
  /* The set's channels only, in ascending order (a unit has one or a few: walking all 64 bits was
   * about a third of an operation start's numbering). */
  for (uint64_t rest = set; rest; rest &= rest - 1) {
    uint32_t ch = (uint32_t)__builtin_ctzll(rest);
    bool cnt = (counted >> ch) & 1;
    recov_owner* o;
    uint32_t item, base = 0;
    if (merge && ((r->last_channels >> ch) & 1)) {
      /* The second operation of a P2P round: the round's item on ch is already numbered; a part
       * that only this direction fills makes the round counted there. */
      item = atomic_load_explicit(&r->dev_items[ch], memory_order_relaxed);
      o = &r->owner[ch][item % RECOV_OWNERS];
      if (cnt && !((r->last_counted >> ch) & 1)) {
        r->host_items[ch]++;
        r->last_counted |= 1ull << ch;
        atomic_fetch_or_explicit(&o->flags, RECOV_OWNER_COUNTED, memory_order_relaxed);
      }
      if (cnt) base = r->host_items[ch];
      /* Relaxed: readers of this entry are numbered after it (they load the item with acquire). */
      atomic_store_explicit(&o->handle[1], u->handle, memory_order_relaxed);
    } else {
      /* Relaxed: the drainer is the only writer; the proxy thread's guard reads it (recov_launched). */
      item = atomic_load_explicit(&r->dev_items[ch], memory_order_relaxed) + 1;
      atomic_store_explicit(&r->dev_items[ch], item, memory_order_relaxed);
      if (cnt) base = ++r->host_items[ch];
      o = &r->owner[ch][item % RECOV_OWNERS];
      uint32_t flags = (cnt ? RECOV_OWNER_COUNTED : 0) | (u->kind == RECOV_UNIT_SELF ? RECOV_OWNER_SELF : 0) |
                       (u->kind == RECOV_UNIT_COLL ? RECOV_OWNER_COLL : 0) |
                       ((u->launch & RECOV_WINDOW_SERIAL_MASK) << RECOV_OWNER_LAUNCH_SHIFT);
      /* Invalidate first (a reader checks the item before and after reading the entry). */
      atomic_store_explicit(&o->item, 0, memory_order_relaxed);
      atomic_store_explicit(&o->flags, flags, memory_order_relaxed);
      atomic_store_explicit(&o->handle[0], u->handle, memory_order_relaxed);
      atomic_store_explicit(&o->handle[1], 0, memory_order_relaxed);
      atomic_store_explicit(&o->launch_ns, u->launch_ns, memory_order_relaxed);
      /* Release: a reader that acquires this item sees the fields above. */
      atomic_store_explicit(&o->item, item, memory_order_release);
      if (merge) {
        r->last_channels |= 1ull << ch;
        if (cnt) r->last_counted |= 1ull << ch;
      }
    }
    if (cnt) {
      reads |= 1ull << ch;
      if (s != NULL) s->recov_base[ch] = base;
      if (base != item) {
        /* This operation's reading on ch is item `base`'s. With an untracked reader nobody
         * will hand that item on: its owner learns now that it is never delivered. */
        uint32_t bflags;
        uint64_t h;
        if (u->handle == 0 && u->kind == RECOV_UNIT_COLL && owner_of(r, ch, base, &bflags, &h) &&
            (bflags & RECOV_OWNER_COLL) && h != 0) {
          deliver(h, ch, false, 0, 0, WITHHELD_NEVER_DELIVERED);
        }
      }
    }
    uint32_t lag = cnt ? item - base : item - r->host_items[ch];
    if (!cnt || base != item) lagging |= 1ull << ch;
    /* A collective waits on ch for its own item's reading, which the operation whose host count
     * is `item` will read. When the item is 64 or more ahead of this operation's count, that
     * reader's own item (at least item + 64) has been launched by the time it reads, so only the
     * causal resolution can keep the reading (when it came before that launch). From
     * RECOV_WAIT_LAG on, this operation's owner entry may be renumbered before the reading comes,
     * and waiting would only hold the slot until the in-flight expiry (lag grows by every
     * send/recv to self: after 96 AlltoAlls of a long MoE job every collective would wait). Such a
     * channel is withheld at once (op_timing.c). */
    if (u->kind == RECOV_UNIT_COLL && base != item && item - base < RECOV_WAIT_LAG) wait |= 1ull << ch;
    if (lag > max_lag) max_lag = lag;
  }
  if (lagging != 0) start_placing(r);
  if (!merge) {
    r->last_channels = set;
    r->last_counted = counted;
    r->last_kind = u->kind;
  }
  atomic_store_explicit(&r->unpaired, (!merge && u->kind != RECOV_UNIT_COLL) ? 1u : 0u, memory_order_relaxed);
  if (s != NULL) {
    s->recov_wait = wait;
    s->recov_reads = reads;
    s->recov_lagging = lagging;
    s->recov_max_lag = max_lag > 255 ? 255 : (uint8_t)max_lag;
  }
}

/* Applies the numbering of a unit to its (queued, held) operation: enters it, numbers, processes
 * the readings that came meanwhile and releases the hold. */
static void number_held(comm_slot* c, recov_state* r, const recov_unit* u, uint64_t set, uint64_t counted) {
  op_slot* s = NULL;
  if (u->handle != 0) s = op_enter(&g_core.ops, (void*)(uintptr_t)u->handle);
  if (s == NULL) {
    /* Closed meanwhile (expired, evicted, flushed): numbered as untracked. */
    recov_unit untracked = *u;
    untracked.handle = 0;
    number_unit(c, r, &untracked, set, counted, NULL);
    return;
  }
  number_unit(c, r, u, set, counted, s);
  uint32_t hold = s->recov_hold;
  uint32_t wait = (uint32_t)__builtin_popcountll(s->recov_wait);
  s->recov_hold = 0;
  /* Seq_cst: a Dekker pair with recov_channel_recorded (a reading stores its ready flag, then loads
   * the state; numbering stores the state, then loads each ready flag): at least one side sees the
   * other, and the claim flag makes exactly one process the reading. */
  atomic_store_explicit(&s->recov_state, RECOV_OP_NUMBERED, memory_order_seq_cst);
  uint32_t started = ctl_started(atomic_load_explicit(&s->ctl, memory_order_relaxed));
  if (started > INSPECTOR_MAX_CHANNELS) started = INSPECTOR_MAX_CHANNELS;
  for (uint32_t i = 0; i < started; i++) {
    if (atomic_load_explicit(&s->ch[i].recov_ready, memory_order_seq_cst)) recov_channel_recorded(s, i);
  }
  if (op_leave(s, 0, hold > wait ? hold - wait : 0)) finish_op(s, 0);
}

/* Numbers queued units while their channel sets are known. Drainer only. */
static void release_queue(comm_slot* c, recov_state* r);

static void drain_queue(comm_slot* c, recov_state* r) {
  if (off_reason(c) != RECOV_OFF_NONE) {
    release_queue(c, r);
    return;
  }
  for (;;) {
    /* Acquire: pairs with the producer's release of q_tail, so the unit's fields are visible. */
    uint32_t head = atomic_load_explicit(&r->q_head, memory_order_relaxed);
    uint32_t tail = atomic_load_explicit(&r->q_tail, memory_order_acquire);
    if (head == tail) return;
    const recov_unit* u = &r->queue[head % RECOV_QUEUE];
    uint64_t set, counted;
    if (!merge_channels(c, r, u, &set, &counted)) return;
    number_held(c, r, u, set, counted);
    /* Release: the slot is free for the producer only after we are done reading it; and the
     * numbered items (dev_items) are visible to a guard that sees the smaller queue count. */
    atomic_store_explicit(&r->q_head, head + 1, memory_order_release);
    atomic_fetch_sub_explicit(&r->queued, 1, memory_order_release);
  }
}

/* Lock-free hand-over of the drainer role: the thread that raises the request count from 0 drains
 * until the count it saw is all that came. Acq_rel: each drainer sees the previous one's work. */
static void serve_requests(comm_slot* c, recov_state* r, uint32_t seen) {
  for (;;) {
    drain_queue(c, r);
    uint32_t before = atomic_fetch_sub_explicit(&r->drain_requests, seen, memory_order_acq_rel);
    if (before == seen) return;
    seen = before - seen;
  }
}

static void request_drain(comm_slot* c, recov_state* r) {
  if (atomic_fetch_add_explicit(&r->drain_requests, 1, memory_order_acq_rel) != 0) return;
  serve_requests(c, r, 1);
}

/* Held operations of a queue that will never be numbered (recovery turned off): released, timed by
 * today's guards. Drainer only. */
static void release_queue(comm_slot* c, recov_state* r) {
  for (;;) {
    uint32_t head = atomic_load_explicit(&r->q_head, memory_order_relaxed);
    uint32_t tail = atomic_load_explicit(&r->q_tail, memory_order_acquire);
    if (head == tail) return;
    recov_unit u = r->queue[head % RECOV_QUEUE];
    atomic_store_explicit(&r->q_head, head + 1, memory_order_release);
    if (u.handle == 0) continue;
    op_slot* s = op_enter(&g_core.ops, (void*)(uintptr_t)u.handle);
    if (s == NULL) continue;
    uint32_t hold = s->recov_hold;
    s->recov_hold = 0;
    atomic_store_explicit(&s->recov_state, RECOV_OP_NONE, memory_order_seq_cst);
    /* Readings that came while it was queued were not judged: today's late-read guard, now. */
    uint32_t started = ctl_started(atomic_load_explicit(&s->ctl, memory_order_relaxed));
    if (started > INSPECTOR_MAX_CHANNELS) started = INSPECTOR_MAX_CHANNELS;
    for (uint32_t i = 0; i < started; i++) {
      if (late_read_possible(c, s->work_sn)) s->ch[i].read_late = 1;
    }
    if (op_leave(s, 0, hold)) finish_op(s, 0);
  }
}

/* Peer and rank are checked to lie in 0..nranks-1 before (number_op), so d lies in
 * -(nranks-1)..nranks-1: one addition instead of two divisions. */
static uint32_t round_of(const recov_op_info* info, int32_t nranks) {
  int64_t d = info->func == FUNC_SEND ? (int64_t)info->peer - info->rank : (int64_t)info->rank - info->peer;
  return (uint32_t)(d < 0 ? d + nranks : d);
}

/* A taken slot's recovery fields as for an operation not yet numbered. Relaxed: the slot is in
 * INIT, seen by no other thread; op_publish releases it. */
static void reset_op_recovery(op_slot* s, uint8_t off_reason) {
  atomic_store_explicit(&s->recov_state, RECOV_OP_NONE, memory_order_relaxed);
  s->recov_hold = 0;
  s->recov_wait = 0;
  s->recov_reads = 0;
  s->recov_lagging = 0;
  s->recov_max_lag = 0;
  atomic_store_explicit(&s->recov_got, 0, memory_order_relaxed);
  atomic_store_explicit(&s->recov_found, 0, memory_order_relaxed);
  atomic_store_explicit(&s->recov_lost, 0, memory_order_relaxed);
  atomic_store_explicit(&s->recov_answered, 0, memory_order_relaxed);
  atomic_store_explicit(&s->recov_lost_reason, WITHHELD_NONE, memory_order_relaxed);
  s->recov_off_reason = off_reason;
}

static void number_op(comm_slot* c, const recov_op_info* info, op_slot* s, void* handle) {
  recov_state* r = c->recov;
  if (s != NULL) reset_op_recovery(s, off_reason(c));
  if (r == NULL || off_reason(c)) return;
  /* Preconditions of the rule, on the enqueuing thread, before this event is numbered. */
  uint8_t reason = RECOV_OFF_NONE;
  if (info->graph) reason = RECOV_OFF_GRAPH;
  else if (info->copy_engine) reason = RECOV_OFF_UNEXPECTED;
  else if (info->kind == RECORD_KIND_P2P && (c->nranks <= 0 || info->rank < 0 || info->rank >= c->nranks ||
                                              info->peer < 0 || info->peer >= c->nranks)) {
    reason = RECOV_OFF_UNEXPECTED;
  }
  else if (info->kind == RECORD_KIND_COLL && info->func == FUNC_BROADCAST &&
           atomic_load_explicit(&r->bcast_api_pending, memory_order_relaxed) > 0) {
    atomic_fetch_sub_explicit(&r->bcast_api_pending, 1, memory_order_relaxed);
  } else if (atomic_load_explicit(&r->bcast_api_pending, memory_order_relaxed) > 0) {
    reason = RECOV_OFF_HIDDEN_WORK;
  }
  if (reason == RECOV_OFF_NONE && info->kind == RECORD_KIND_COLL && ++r->colls_in_launch > 1) reason = RECOV_OFF_SEVERAL_COLLS;
  recov_unit u = {0};
  u.n = info->n_channels;
  u.peer = info->peer;
  u.bytes = info->bytes;
  u.handle = (uint64_t)(uintptr_t)(s != NULL ? handle : NULL);
  /* This thread's last KernelLaunch: the launch of this operation's kernel (launch_clock.h). */
  u.launch_ns = launch_clock_last();
  u.launch = r->launch_serial;
  uint32_t round = 0;
  if (reason != RECOV_OFF_NONE) {
    u.kind = RECOV_UNIT_COLL; /* not numbered: recovery goes off below */
  } else if (info->kind == RECORD_KIND_COLL) {
    u.kind = RECOV_UNIT_COLL;
  } else {
    round = round_of(info, c->nranks);
    u.dir = info->func == FUNC_SEND ? 1 : 0;
    u.kind = round == 0 ? RECOV_UNIT_SELF : RECOV_UNIT_P2P;
    bool pairs = r->prev_single && (r->prev_kind == RECOV_UNIT_SELF || r->prev_kind == RECOV_UNIT_P2P) &&
                 r->prev_launch == r->launch_serial && r->prev_round == (int32_t)round && r->prev_dir != u.dir;
    if (pairs) u.kind = RECOV_UNIT_MERGE;
  }
  if (reason == RECOV_OFF_NONE && u.handle == 0 && (u.kind == RECOV_UNIT_P2P || u.kind == RECOV_UNIT_MERGE) &&
      round != 0) {
    uint64_t ignored;
    if (!shape_lookup(r, u.peer, u.dir, u.n, &ignored)) reason = RECOV_OFF_SHAPE_UNLEARNABLE;
  }
  if (reason != RECOV_OFF_NONE) {
    turn_off(c, reason);
    if (s != NULL) s->recov_off_reason = reason;
    /* Queued operations are released to today's guards (by the drainer, which sees "off"). */
    request_drain(c, r);
    return;
  }
  /* Pairing state for the next event. */
  if (u.kind == RECOV_UNIT_MERGE) {
    r->prev_single = 0;
  } else {
    r->prev_kind = u.kind;
    r->prev_dir = u.dir;
    r->prev_round = (int32_t)round;
    r->prev_launch = r->launch_serial;
    r->prev_single = 1;
  }
  if (s != NULL) s->recov_launch = r->launch_serial;
  /* Number now if nothing is queued, the set is known and no other thread is draining. */
  uint64_t set = 0, counted = 0;
  bool known = merge_channels(c, r, &u, &set, &counted);
  if (u.kind != RECOV_UNIT_MERGE) {
    uint32_t units = atomic_load_explicit(&r->units_in_launch, memory_order_relaxed) + 1;
    uint32_t most = atomic_load_explicit(&r->max_units, memory_order_relaxed);
    if (units > most) atomic_store_explicit(&r->max_units, units, memory_order_relaxed);
  }
  bool numbered = false;
  if (known && atomic_load_explicit(&r->queued, memory_order_relaxed) == 0) {
    uint32_t zero = 0;
    /* Acquire: the previous drainer's numbering is visible. */
    if (atomic_compare_exchange_strong_explicit(&r->drain_requests, &zero, 1, memory_order_acquire,
                                                memory_order_relaxed)) {
      if (atomic_load_explicit(&r->queued, memory_order_relaxed) == 0) {
        number_unit(c, r, &u, set, counted, s);
        if (s != NULL) atomic_store_explicit(&s->recov_state, RECOV_OP_NUMBERED, memory_order_relaxed);
        numbered = true;
      }
      /* Hands the role back; a request that came meanwhile (a shape learned) is drained now:
       * the remaining count is this thread's to serve, as in request_drain. */
      uint32_t before = atomic_fetch_sub_explicit(&r->drain_requests, 1, memory_order_acq_rel);
      if (before != 1) serve_requests(c, r, before - 1);
    }
  }
  if (!numbered) {
    uint32_t head = atomic_load_explicit(&r->q_head, memory_order_acquire);
    uint32_t tail = atomic_load_explicit(&r->q_tail, memory_order_relaxed);
    if (tail - head >= RECOV_QUEUE) {
      turn_off(c, RECOV_OFF_QUEUE_FULL);
      if (s != NULL) s->recov_off_reason = RECOV_OFF_QUEUE_FULL;
      request_drain(c, r); /* releases the held operations to today's guards */
      return;
    }
    if (s != NULL) {
      atomic_store_explicit(&s->recov_state, RECOV_OP_QUEUED, memory_order_relaxed);
      /* Held: a collective may wait on every channel once numbered; a P2P only for the numbering. */
      s->recov_hold = info->kind == RECORD_KIND_COLL ? info->n_channels : 1;
    }
    r->queue[tail % RECOV_QUEUE] = u;
    /* Counted as queued before it is visible to the drainer (which decrements after numbering). */
    atomic_fetch_add_explicit(&r->queued, 1, memory_order_relaxed);
    /* Release: the unit's fields before the tail that publishes it. */
    atomic_store_explicit(&r->q_tail, tail + 1, memory_order_release);
  }
  if (u.kind != RECOV_UNIT_MERGE) {
    /* Release: a guard that sees this unit counted sees its items numbered (or queued). A load and
     * a store, not an RMW: the enqueuing side (this thread, enter_enqueue_side) is the one writer
     * (here and in recov_note_launch); the proxy thread only reads it. */
    uint32_t units = atomic_load_explicit(&r->units_in_launch, memory_order_relaxed);
    atomic_store_explicit(&r->units_in_launch, units + 1, memory_order_release);
  }
  if (!numbered && known) request_drain(c, r);
}

/* ---- proxy thread: readings ------------------------------------------------------------------ */

/* The most items channel ch can have had launched: numbered, plus one per queued unit, plus what an
 * open launch whose operation events are still coming may add (KernelLaunch precedes the launch,
 * so this is an upper bound). */
static uint32_t recov_launched(recov_state* r, uint32_t ch) {
  /* Acquire fence: orders NCCL's read of the timestamp slot, made before this callback, before the
   * loads below (as channel_late_read.h). ThreadSanitizer does not model fences: its builds use
   * acquire loads instead (tests only). Acquire on units and queued: pairs with their release, so
   * the items numbered before them are visible. */
#if !defined(__SANITIZE_THREAD__)
  atomic_thread_fence(memory_order_acquire);
#endif
  uint64_t word = atomic_load_explicit(&r->launch_word, memory_order_acquire);
  uint32_t units = atomic_load_explicit(&r->units_in_launch, memory_order_acquire);
  uint32_t queued = atomic_load_explicit(&r->queued, memory_order_acquire);
  uint32_t most = atomic_load_explicit(&r->max_units, memory_order_relaxed);
  uint32_t unpaired = atomic_load_explicit(&r->unpaired, memory_order_relaxed);
  uint32_t items = atomic_load_explicit(&r->dev_items[ch], memory_order_acquire);
  uint32_t margin = 0;
  if (word & 1) margin = (most > units ? most - units : 0) + unpaired;
  return items + queued + margin;
}

void recov_channel_started(op_slot* s, uint32_t i) {
  /* Relaxed: read inside the operation's enter, where its fields are published. */
  uint8_t state = atomic_load_explicit(&s->recov_state, memory_order_relaxed);
  channel_slot* ch = &s->ch[i];
  ch->recov_upper_start = 0;
  ch->recov_upper_stop = 0;
  atomic_store_explicit(&ch->recov_ready, 0, memory_order_relaxed);
  atomic_store_explicit(&ch->recov_claimed, 0, memory_order_relaxed);
  if (state == RECOV_OP_NONE) return;
  comm_slot* c = comm_of(s);
  if (c == NULL || c->recov == NULL) return;
  recov_state* r = c->recov;
  uint32_t chan = ch->channel_id < 64 ? ch->channel_id : 63;
  /* The launch has reached the proxy: all of its operation events came before this (NCCL posts a
   * plan's proxy operations after its task events), so it adds no margin, for this reading too.
   * CAS: only the launch this operation belongs to is closed, never a newer one. Relaxed: a value
   * of its own. */
  uint64_t open = ((uint64_t)s->recov_launch << 1) | 1;
  if (atomic_load_explicit(&r->launch_word, memory_order_relaxed) == open) {
    atomic_compare_exchange_strong_explicit(&r->launch_word, &open, open & ~1ull, memory_order_relaxed,
                                            memory_order_relaxed);
  }
  ch->recov_upper_start = recov_launched(r, chan);
  /* Learning a P2P shape: a queued P2P to a peer whose channels all started. */
  if (state == RECOV_OP_QUEUED && s->kind == RECORD_KIND_P2P && s->peer_or_root != s->rank &&
      i + 1 == s->n_channels) {
    uint64_t set = 0;
    for (uint32_t k = 0; k <= i; k++) set |= recov_bit(s->ch[k].channel_id);
    uint8_t dir = s->func == FUNC_SEND ? 1 : 0;
    uint64_t known;
    if (!shape_lookup(r, s->peer_or_root, dir, s->n_channels, &known)) {
      /* Claims an entry (relaxed RMW), writes it, then publishes it (release). */
      uint32_t k = atomic_fetch_add_explicit(&r->n_shapes, 1, memory_order_relaxed);
      if (k < RECOV_SHAPES) {
        r->shapes[k].peer = s->peer_or_root;
        r->shapes[k].dir = dir;
        r->shapes[k].n = s->n_channels;
        r->shapes[k].channels = set;
        atomic_store_explicit(&r->shapes[k].ready, 1, memory_order_release);
      }
    }
    request_drain(c, r);
  }
}

static void deliver(uint64_t handle, uint32_t c, bool ok, uint64_t start, uint64_t stop, uint8_t reason) {
  deliver_from(handle, c, ok, start, stop, reason, false);
}

/* Pokes an owner about its waiting channel c. A lost word from a P2P operation (`from_pair`: the
 * other operation of its round reads the same slot, and may have read it in time) completes the
 * channel only when a second word is lost too, or at the owner's close (in-flight expiry, flush): a
 * good reading wins whenever it comes. */
static void deliver_from(uint64_t handle, uint32_t c, bool ok, uint64_t start, uint64_t stop, uint8_t reason,
                         bool from_pair) {
  op_slot* y = op_enter(&g_core.ops, (void*)(uintptr_t)handle);
  if (y == NULL) {
    counter_add(CTR_RECOVERY_OWNER_GONE, 1);
    return;
  }
  uint32_t done = 0;
  uint64_t bit = recov_bit(c);
  if (y->recov_wait & bit) {
    /* Relaxed RMWs inside the owner's enter/leave: the control word's release/acquire publishes
     * the timestamps with them to the thread that builds the record. */
    if (ok) {
      uint64_t before = atomic_fetch_or_explicit(&y->recov_got, bit, memory_order_relaxed);
      if (!(before & bit)) {
        y->recov_start[c] = start;
        y->recov_stop[c] = stop;
      }
    } else {
      uint64_t before = atomic_fetch_or_explicit(&y->recov_lost, bit, memory_order_relaxed);
      uint8_t none = WITHHELD_NONE;
      atomic_compare_exchange_strong_explicit(&y->recov_lost_reason, &none, reason, memory_order_relaxed,
                                              memory_order_relaxed);
      if (from_pair && !(before & bit)) bit = 0; /* wait for the partner's word */
    }
    /* The first word that completes the channel counts it once. */
    if (bit && !(atomic_fetch_or_explicit(&y->recov_answered, bit, memory_order_relaxed) & bit)) done = 1;
  }
  if (op_leave(y, 0, done)) finish_op(y, 0);
}

/* Resolution of a reading that failed the launch-bound guard (docs/research/channel-recovery.md,
 * step 3). NCCL hands a reading of base `base` the newest item in its slot: item base, or
 * base + 64k for a k >= 1 launched by the time it read the slot (the start and the stop are read
 * separately, each by its own bound `upper_*`). A candidate is ruled out for a timestamp when
 * - its kernel was launched after the timestamp (the causal test: the GPU clock's offset bound,
 *   gpu_clock_bound.h, maps the launch onto the GPU clock, as for a channel's own start in
 *   op_timing.c);
 * - an item already placed on the channel contradicts the order (the order test, channel_placed.h).
 * Of several candidates left, the one whose launch window (channel_placed.h) holds the timestamp is
 * chosen when it is the only one. The reading is item w's when w is the only candidate left for its
 * start and the only one left for its stop. A candidate not numbered, with its entry overwritten, or
 * of unknown launch time is not ruled out by the causal test, nor chosen by a window.
 * judge_causal runs once per reading (its verdict is kept with a parked reading); judge_placed runs
 * then and at each retry; resolve_reading does both and returns w, or 0 when the reading stays
 * ambiguous, with *how saying which test decided (RESOLVED_*). Proxy thread (or the drainer); the
 * owner entries are read with the numbering's item check. */
enum { RESOLVED_CAUSAL = 0, RESOLVED_ORDER = 1, RESOLVED_WINDOW = 2 };
_Static_assert(RECOV_PLACED_CANDIDATES <= sizeof(((recov_reading*)0)->launch) / sizeof(uint32_t),
               "recov_reading keeps a launch per candidate");

static inline bool one_bit(uint32_t m) { return m != 0 && (m & (m - 1)) == 0; }

/* The causal test, once per reading: fills rd's candidates (count, launches, which are numbered)
 * and the candidates left for its start and its stop. False: more candidates than judged. */
static bool judge_causal(recov_state* r, recov_reading* rd, uint32_t chan) {
  int64_t bound;
  bool have_bound = gpu_clock_offset_bound(rd->clock_device, rd->op_start_ns, &bound);
  uint32_t n = 0, start_ok = 0, stop_ok = 0, known = 0;
  for (uint32_t k = 0;; k++) {
    uint32_t cand = rd->base + k * RECOV_SLOTS;
    bool start_may = k == 0 || cand <= rd->upper_start, stop_may = k == 0 || cand <= rd->upper_stop;
    if (!start_may && !stop_may) break;
    if (n == RECOV_PLACED_CANDIDATES) return false; /* more candidates than judged: left ambiguous */
    uint32_t bit = 1u << n++;
    if (start_may) start_ok |= bit;
    if (stop_may) stop_ok |= bit;
    if (k * RECOV_SLOTS >= RECOV_OWNERS) continue; /* its entry took item base's place */
    recov_owner* o = &r->owner[chan][cand % RECOV_OWNERS];
    /* Acquire: pairs with the numbering's release of the item (the fields came before it). */
    uint32_t item = atomic_load_explicit(&o->item, memory_order_acquire);
    uint32_t flags = atomic_load_explicit(&o->flags, memory_order_relaxed);
    uint64_t launch_ns = atomic_load_explicit(&o->launch_ns, memory_order_relaxed);
    if (item != cand || atomic_load_explicit(&o->item, memory_order_acquire) != cand) continue;
    known |= bit;
    rd->launch[n - 1] = flags >> RECOV_OWNER_LAUNCH_SHIFT;
    if (!have_bound || launch_ns == 0) continue;
    int64_t earliest = (int64_t)clock_mono_to_wall_ns(launch_ns) + bound;
    if ((int64_t)rd->start < earliest) start_ok &= ~bit;
    if ((int64_t)rd->stop < earliest) stop_ok &= ~bit;
  }
  rd->n = (uint8_t)n;
  rd->start_ok = (uint8_t)start_ok;
  rd->stop_ok = (uint8_t)stop_ok;
  rd->known = (uint8_t)known;
  return true;
}

/* The order test and the windows over what judge_causal left (on a retry, against what is placed
 * by then). Returns the item, or 0 when the reading stays ambiguous. */
static uint32_t judge_placed(recov_state* r, const recov_reading* rd, uint32_t chan, uint8_t* how) {
  uint32_t n = rd->n, start_ok = rd->start_ok, stop_ok = rd->stop_ok;
  uint32_t cands[RECOV_PLACED_CANDIDATES];
  for (uint32_t i = 0; i < n; i++) cands[i] = rd->base + i * RECOV_SLOTS;
  *how = RESOLVED_CAUSAL;
  if (one_bit(start_ok) && start_ok == stop_ok) return cands[__builtin_ctz(start_ok)];
  if (start_ok == 0 || stop_ok == 0) return 0;
  uint32_t order_start, order_stop;
  placed_order_test(&r->placed[chan], cands, n, rd->start, rd->stop, &order_start, &order_stop);
  start_ok &= ~order_start;
  stop_ok &= ~order_stop;
  *how = RESOLVED_ORDER;
  if (one_bit(start_ok) && start_ok == stop_ok) return cands[__builtin_ctz(start_ok)];
  if (start_ok == 0 || stop_ok == 0) return 0;
  /* Windows: of the candidates left, the one whose launch's window holds the timestamp, if only one. */
  uint32_t in_start = 0, in_stop = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t bit = 1u << i;
    if (!(rd->known & bit)) continue;
    if ((start_ok & bit) && window_holds(r->windows, rd->launch[i], rd->start)) in_start |= bit;
    if ((stop_ok & bit) && window_holds(r->windows, rd->launch[i], rd->stop)) in_stop |= bit;
  }
  if (one_bit(in_start)) start_ok = in_start;
  if (one_bit(in_stop)) stop_ok = in_stop;
  *how = RESOLVED_WINDOW;
  if (one_bit(start_ok) && start_ok == stop_ok) return cands[__builtin_ctz(start_ok)];
  return 0;
}

static uint32_t resolve_reading(recov_state* r, recov_reading* rd, uint32_t chan, uint8_t* how) {
  *how = RESOLVED_CAUSAL;
  if (!judge_causal(r, rd, chan)) {
    rd->n = 0; /* not parked either: nothing to judge */
    return 0;
  }
  return judge_placed(r, rd, chan, how);
}

/* A reading resolved to item w: handed to w's owner when it is a collective waiting for that channel
 * (deliver_from ignores any other). */
static void hand_to_item(recov_state* r, uint32_t chan, uint32_t w, const recov_reading* rd) {
  uint32_t flags;
  uint64_t h;
  if (!owner_of(r, chan, w, &flags, &h) || (flags & RECOV_OWNER_SELF) || !(flags & RECOV_OWNER_COLL) || h == 0) {
    return;
  }
  deliver(h, chan, true, rd->start, rd->stop, WITHHELD_NONE);
}

/* Places a reading resolved to item w (placing on): the ring of placed items and w's launch window.
 * `own_launch` is the launch of w when the reader is known to own it (else read from w's owner
 * entry). Returns whether the ring took it (then parked readings of the channel may now resolve). */
static bool place(recov_state* r, uint32_t chan, uint32_t w, const recov_reading* rd, bool own, uint32_t own_launch) {
  if (!placing(r)) return false;
  bool put = placed_put(&r->placed[chan], w, rd->start, rd->stop);
  uint32_t flags;
  uint64_t h;
  if (own) {
    window_widen(r->windows, own_launch, rd->start, rd->stop);
  } else if (owner_of(r, chan, w, &flags, &h)) {
    window_widen(r->windows, flags >> RECOV_OWNER_LAUNCH_SHIFT, rd->start, rd->stop);
  }
  return put;
}

/* Answers a lagging reader's base owner (a waiting collective): with this reading when it is item
 * base's (`is_base`), else with item base's timestamps where another reading placed them, else
 * that they are lost. Readings of a round to self's item, and of a P2P's or an untracked
 * operation's, have nobody to answer. */
static void answer_base_owner(recov_state* r, uint32_t chan, const recov_reading* rd, bool is_base) {
  uint32_t flags;
  uint64_t h;
  if (!owner_of(r, chan, rd->base, &flags, &h)) {
    counter_add(CTR_RECOVERY_LOST_SLOT_REUSED, 1); /* its owner's entry was renumbered: item base + 64 exists */
    return;
  }
  if (flags & RECOV_OWNER_SELF) {
    counter_add(CTR_RECOVERY_SELF_ITEM, 1);
    return;
  }
  if (!(flags & RECOV_OWNER_COLL) || h == 0) return; /* a P2P's or an untracked operation's item */
  uint64_t a, b;
  if (is_base) {
    deliver(h, chan, true, rd->start, rd->stop, WITHHELD_NONE);
  } else if (placed_get(&r->placed[chan], rd->base, &a, &b)) {
    counter_add(CTR_RECOVERY_FOUND_PLACED, 1);
    deliver(h, chan, true, a, b, WITHHELD_NONE);
  } else {
    counter_add(CTR_RECOVERY_LOST_SLOT_REUSED, 1);
    deliver_from(h, chan, false, 0, 0, WITHHELD_SLOT_REUSED, rd->from_pair);
  }
}

/* Tries the channel's parked readings again after a placement of item w: one pass (a placement made
 * by a retry does not start another), over the readings whose candidates lie within 64 items of w
 * (parked_near), at most RECOV_RETRIES of them, taken in turn from where the last retry on the
 * channel stopped. Skipping one only leaves it ambiguous longer (its causal test also gains from a
 * later retry: the GPU clock's bound grows with observations). */
static void retry_parked(recov_state* r, uint32_t chan, uint32_t w) {
  recov_parked_ring* ring = &r->parked[chan];
  if (!parked_any(ring)) return;
  /* Relaxed: only spreads the retries over the entries. */
  uint32_t from = atomic_load_explicit(&ring->retry_from, memory_order_relaxed), tried = 0, k = 0;
  for (; k < RECOV_PARKED && tried < RECOV_RETRIES; k++) {
    uint32_t i = (from + k) % RECOV_PARKED;
    recov_reading rd;
    if (!parked_near(ring, i, w) || !parked_claim(ring, i, &rd)) continue;
    tried++;
    uint8_t how;
    uint32_t got = judge_placed(r, &rd, chan, &how);
    if (got == 0) {
      parked_release(ring, i, true);
      continue;
    }
    parked_release(ring, i, false);
    counter_add(CTR_RECOVERY_PARKED_PLACED, 1);
    place(r, chan, got, &rd, false, 0);
    hand_to_item(r, chan, got, &rd);
    if (rd.lagging && got != rd.base) answer_base_owner(r, chan, &rd, false);
  }
  atomic_store_explicit(&ring->retry_from, (from + k) % RECOV_PARKED, memory_order_relaxed);
}

/* An ambiguous reading: parked for a retry. A lagging reader's base owner keeps waiting meanwhile;
 * it is answered when the reading is placed, or evicted by a newer one, or at once if it cannot be
 * parked. */
static void park(recov_state* r, uint32_t chan, const recov_reading* rd) {
  recov_reading evicted;
  /* Its candidates run from base to the last item 64k later launched when a timestamp was read. */
  uint32_t upper = (int32_t)(rd->upper_stop - rd->upper_start) > 0 ? rd->upper_stop : rd->upper_start;
  uint32_t last = rd->base + ((int32_t)(upper - rd->base) > 0 ? (upper - rd->base) / RECOV_SLOTS * RECOV_SLOTS : 0);
  int result = parked_put(&r->parked[chan], rd, rd->base - RECOV_SLOTS, last + RECOV_SLOTS, &evicted);
  if (result == PARK_FAILED) {
    if (rd->lagging) answer_base_owner(r, chan, rd, false);
    return;
  }
  counter_add(CTR_RECOVERY_PARKED, 1);
  if (result == PARK_DONE_EVICTED && evicted.lagging) answer_base_owner(r, chan, &evicted, false);
}

/* Processes reading i of operation s (entered, numbered, reading complete). */
static void process_reading(op_slot* s, uint32_t i, comm_slot* c) {
  channel_slot* ch = &s->ch[i];
  uint8_t zero = 0;
  /* Relaxed CAS: the claim only decides who processes; the data came with the enter. */
  if (!atomic_compare_exchange_strong_explicit(&ch->recov_claimed, &zero, 1, memory_order_relaxed,
                                               memory_order_relaxed)) {
    return;
  }
  if (c == NULL) c = comm_of(s); /* not looked up by the caller */
  if (c == NULL || c->recov == NULL) return;
  recov_state* r = c->recov;
  uint32_t chan = ch->channel_id;
  if (chan >= 64 || !((s->recov_reads >> chan) & 1)) {
    /* A channel the rule did not number for it: the model does not hold here. */
    turn_off(c, RECOV_OFF_UNEXPECTED);
    return;
  }
  uint32_t base = s->recov_base[chan];
  bool guard = base + RECOV_SLOTS > ch->recov_upper_start && base + RECOV_SLOTS > ch->recov_upper_stop;
  bool interval = op_timing_gpu_interval_ok(ch->gpu_start_ns, ch->gpu_stop_ns);
  bool lagging = (s->recov_lagging >> chan) & 1;
  recov_reading rd = {.base = base,
                      .upper_start = ch->recov_upper_start,
                      .upper_stop = ch->recov_upper_stop,
                      .start = ch->gpu_start_ns,
                      .stop = ch->gpu_stop_ns,
                      .op_start_ns = s->start_ns,
                      .clock_device = s->clock_device,
                      .lagging = lagging,
                      .from_pair = s->kind == RECORD_KIND_P2P};
  if (!guard) start_placing(r);
  uint32_t w = 0; /* the item the reading is known to be, 0: not known */
  if (interval) {
    uint8_t how = RESOLVED_CAUSAL;
    w = guard ? base : resolve_reading(r, &rd, chan, &how);
    if (w != 0 && !guard) {
      counter_add(how == RESOLVED_WINDOW  ? CTR_RECOVERY_WINDOW_PLACED
                  : how == RESOLVED_ORDER ? CTR_RECOVERY_ORDER_PLACED
                                          : CTR_RECOVERY_CAUSAL_PLACED,
                  1);
    }
    /* The item's launch: the reader's own when the item is its own (in step), else from the item's
     * owner entry (which the enqueuing thread wrote: a cache line this thread would otherwise not
     * touch for an in-step reading). A placement may settle parked readings of the channel. */
    if (w != 0 && place(r, chan, w, &rd, w == base && !lagging, s->recov_launch)) retry_parked(r, chan, w);
  }
  if (w != 0 && w != base) hand_to_item(r, chan, w, &rd);
  /* Ambiguous: parked for a retry after later placements (placing on, a proper interval). */
  bool parked = false;
  if (w == 0 && interval && !guard && rd.n != 0 && rd.start_ok != 0 && rd.stop_ok != 0 && placing(r)) {
    park(r, chan, &rd);
    parked = true;
  }
  if (!lagging) {
    /* Its own item (in step): kept unless the slot may have been reused (a zero or reversed
     * timestamp is quarantined by op_timing, as without recovery). Not known to be its own, it
     * takes its item's timestamps where another reading placed them (an earlier reader of the same
     * slot that read it late), else the channel is read late. */
    if (guard || w == base || ch->gpu_start_ns == 0) return;
    uint64_t a, b;
    if (placed_get(&r->placed[chan], base, &a, &b)) {
      uint64_t bit = recov_bit(chan);
      s->recov_start[chan] = a;
      s->recov_stop[chan] = b;
      /* Relaxed RMWs inside the operation's enter/leave (as in deliver_from). */
      atomic_fetch_or_explicit(&s->recov_got, bit, memory_order_relaxed);
      atomic_fetch_or_explicit(&s->recov_found, bit, memory_order_relaxed);
      counter_add(CTR_RECOVERY_FOUND_PLACED, 1);
    } else {
      ch->read_late = 1;
    }
    return;
  }
  if (parked) return; /* base's owner is answered when the reading is placed or evicted */
  answer_base_owner(r, chan, &rd, w == base);
}

void recov_channel_recorded(op_slot* s, uint32_t i) {
  channel_slot* ch = &s->ch[i];
  uint8_t state = atomic_load_explicit(&s->recov_state, memory_order_seq_cst);
  if (state == RECOV_OP_NONE) return;
  comm_slot* c = NULL;
  if (!atomic_load_explicit(&ch->recov_ready, memory_order_relaxed)) {
    c = comm_of(s);
    if (c == NULL || c->recov == NULL) return;
    ch->recov_upper_stop = recov_launched(c->recov, ch->channel_id < 64 ? ch->channel_id : 63);
    /* Only a queued operation needs the Dekker pair with number_held (see there): one numbered
     * already is never scanned by it again, so this thread alone processes the reading, and the
     * ready flag (a seq_cst store, a full fence) is left unset; the claim below still decides. */
    if (state == RECOV_OP_QUEUED) {
      /* Seq_cst: the Dekker pair with number_held. */
      atomic_store_explicit(&ch->recov_ready, 1, memory_order_seq_cst);
      state = atomic_load_explicit(&s->recov_state, memory_order_seq_cst);
    }
  }
  if (state == RECOV_OP_NUMBERED) process_reading(s, i, c);
}

static void hand_on_owed(op_slot* s, uint32_t started);

/* A closing slot's reading flags, back to 0 for its next operation. number_held scans the flags of
 * the channels started so far, and a channel start clears its own only once it has entered the
 * slot: a flag left set (a reading that came while this operation was queued, and it closed before
 * it was numbered) would let the next operation's drainer take a reading that has not come. Relaxed:
 * op_release's release store publishes them before the slot is taken again. */
void recov_op_closing(op_slot* s, uint32_t started) {
  hand_on_owed(s, started);
  for (uint32_t i = 0; i < started; i++) {
    atomic_store_explicit(&s->ch[i].recov_ready, 0, memory_order_relaxed);
    atomic_store_explicit(&s->ch[i].recov_claimed, 0, memory_order_relaxed);
  }
}

static void hand_on_owed(op_slot* s, uint32_t started) {
  uint8_t state = atomic_load_explicit(&s->recov_state, memory_order_relaxed);
  if (state == RECOV_OP_QUEUED) {
    /* Never numbered: its readings are judged by today's late-read guard, now (later than they
     * were read, so it errs towards leaving them out). */
    comm_slot* c = comm_of(s);
    for (uint32_t i = 0; i < started; i++) {
      if (c == NULL || late_read_possible(c, s->work_sn)) s->ch[i].read_late = 1;
    }
    return;
  }
  if (state != RECOV_OP_NUMBERED) return;
  /* Readings it owed to others that never came (or came without their stop): lost for them. */
  comm_slot* c = comm_of(s);
  if (c == NULL || c->recov == NULL) return;
  recov_state* r = c->recov;
  uint64_t owed = s->recov_lagging & s->recov_reads;
  for (uint32_t i = 0; i < started; i++) {
    channel_slot* ch = &s->ch[i];
    if (ch->channel_id < 64 && atomic_load_explicit(&ch->recov_claimed, memory_order_relaxed)) {
      owed &= ~(1ull << ch->channel_id);
    }
  }
  while (owed) {
    uint32_t chan = (uint32_t)__builtin_ctzll(owed);
    owed &= owed - 1;
    uint32_t flags;
    uint64_t h;
    if (owner_of(r, chan, s->recov_base[chan], &flags, &h) && (flags & RECOV_OWNER_COLL) && h != 0) {
      deliver_from(h, chan, false, 0, 0, WITHHELD_NEVER_DELIVERED, s->kind == RECORD_KIND_P2P);
    }
  }
}

/* The enqueuing side's state (launch serial, pairing, Broadcast calls) belongs to one thread at a
 * time: NCCL enqueues a communicator's work from one thread at a time. Two threads in here at once
 * (not NCCL's way; a CUDA host-function thread for a graph replay is caught by its own reason
 * first) turn recovery off rather than race. Acquire/release on the flag orders one thread's
 * numbering before the next one's. */
static bool enter_enqueue_side(comm_slot* c) {
  recov_state* r = c->recov;
  if (r == NULL) return true;
  if (atomic_exchange_explicit(&r->enqueuing, 1, memory_order_acquire)) {
    turn_off(c, RECOV_OFF_UNEXPECTED);
    return false;
  }
  return true;
}

static void leave_enqueue_side(comm_slot* c) {
  if (c->recov != NULL) atomic_store_explicit(&c->recov->enqueuing, 0, memory_order_release);
}

void recov_number_op(comm_slot* c, const recov_op_info* info, op_slot* s, void* handle) {
  if (!enter_enqueue_side(c)) {
    if (s != NULL) reset_op_recovery(s, RECOV_OFF_UNEXPECTED);
    return;
  }
  number_op(c, info, s, handle);
  leave_enqueue_side(c);
}
